#!/bin/bash
# usage: docs/bench/thread-wakeups.sh <copy of gateway/target/quarkus-app> PORTBASE [SETTLE_S] [WINDOW_S] -> each thread of a fresh
# idle server (HTTP on PORTBASE, its broker on +1, management on +2, data in /tmp/tw-PORTBASE): CPU ticks and voluntary
# wake-ups a second over the window, busiest first (docs/benchmarks.md, 2026-12-07)
app=$1; pb=$2; settle=${3:-60}; win=${4:-60}
rm -rf /tmp/tw-$pb
MP_DATA=/tmp/tw-$pb MP_PORT=$pb MP_KAFKA_PORT=$((pb+1)) MP_MANAGEMENT_PORT=$((pb+2)) java -jar $app/quarkus-run.jar > /tmp/tw-$pb.log 2>&1 &
pid=$!
sleep $settle
snap() { for t in /proc/$pid/task/*; do n=$(tr ' ' '_' < $t/comm); echo "$(basename $t) $n $(awk '{print $14+$15}' $t/stat) $(awk '/^voluntary_ctxt/{print $2}' $t/status)"; done; }
snap > /tmp/tw-$pb.a; sleep $win; snap > /tmp/tw-$pb.b
join <(sort /tmp/tw-$pb.a) <(sort /tmp/tw-$pb.b) | awk -v w=$win '{printf "%-48s cpu_ticks %4d  wakeups/s %6.1f\n", $2, $6-$3, ($7-$4)/w}' | sort -t/ -k2 -n -r | sort -k5 -n -r | head -40
echo "process total ticks: $(awk '{print $14+$15}' /proc/$pid/stat)"
kill $pid; wait $pid 2>/dev/null
