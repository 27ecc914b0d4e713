package io.monitorbackbone.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.protocol.Json;
import java.io.PrintWriter;
import java.net.URLDecoder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The watch loop. It reads where it left off: the committed cursor on its first pull (so a restarted watch resumes
 * exactly at the server's cursor), and then, since it does not ack what it only printed, replays from the last NEXT
 * with {@code cursor=}. Only {@code --ack-on-print} moves the server's cursor.
 */
final class WatchLoop {

    record Options(boolean catchUp, int waitSeconds, int limit, boolean once, boolean ackOnPrint) {}

    /** How the loop waits between attempts; tests of the loop can pass one that does not sleep. */
    interface Pause {
        void sleep(long millis) throws InterruptedException;
    }

    static final long FIRST_BACKOFF_MS = 1_000;
    static final long MAX_BACKOFF_MS = 10_000;
    /** The backlog is read in the largest pages the protocol serves, without waiting. */
    static final int CATCH_UP_LIMIT = 200;
    /** Beyond {@code wait}, how long a pull may take before the server counts as away. */
    private static final Duration PULL_MARGIN = Duration.ofSeconds(15);

    private final MonitorClient api;
    private final String subscription;
    private final String token;
    private final Options options;
    private final PrintWriter out;
    private final Pause pause;

    /** Where the next read starts; null means the committed cursor. */
    private Long position;
    /** The committed cursor as the last answer said, -1 before the first. */
    private long committed = -1;
    /** With --catch-up: the monitor's head at the first pull; what is at or below it is backlog. */
    private long backlogHead = -1;

    private boolean catching;
    private String monitor;
    private String lastIdle;
    private boolean down;
    private long backoffMs = FIRST_BACKOFF_MS;

    WatchLoop(MonitorClient api, String subscription, String token, Options options, PrintWriter out, Pause pause) {
        this.api = api;
        this.subscription = subscription;
        this.token = token;
        this.options = options;
        this.out = out;
        this.pause = pause;
        this.catching = options.catchUp();
    }

    /**
     * Returns the exit status: only {@code --once}, a retired subscription, a refusal or a closed stdout end the loop.
     */
    int run() throws InterruptedException {
        try {
            return follow();
        } catch (ReaderGone e) {
            // Whoever read the lines has gone (the monitor tool stopped): stop, and ack nothing that was not seen.
            return Exit.OK;
        }
    }

    private int follow() throws InterruptedException {
        while (true) {
            String path = pullPath();
            Duration timeout = Duration.ofSeconds(currentWait()).plus(PULL_MARGIN);
            MonitorClient.Reply reply = request(() -> api.get(path, token, timeout));
            Integer exit;
            if (reply == null) {
                exit = options.once() ? Exit.UNREACHABLE : null;
            } else if (reply.status() == 200
                    && reply.json() != null
                    && reply.json().has("observations")) {
                exit = page(reply.json());
            } else if (retired(reply)) {
                print(Lines.retired());
                exit = Exit.OK;
            } else if ("CURSOR_EXPIRED".equals(reply.code()) && !alreadyAtFloor(reply.json())) {
                exit = expired(reply.json());
            } else {
                print(Lines.error(reply.status(), reply.body()));
                exit = Exit.REFUSED;
            }
            if (exit != null) {
                return exit;
            }
        }
    }

    private Integer page(JsonNode page) throws InterruptedException {
        committed = page.path("cursor").asLong(committed);
        String m = Json.text(page, "monitor");
        monitor = m != null ? m : monitor;
        long head = page.path("head").asLong();
        if (options.catchUp() && backlogHead < 0) {
            backlogHead = head;
        }
        JsonNode observations = page.path("observations");
        if (observations.isEmpty()) {
            catching = false;
            String idle = Lines.idle(
                    head, page.path("lag").asLong(), page.path("lag_bounded").asBoolean(false));
            // Once per change: an idle agent should not be woken every 25 s to hear that nothing happened.
            if (options.once() || !idle.equals(lastIdle)) {
                print(idle);
                lastIdle = idle;
            }
            if (options.once()) {
                return Exit.OK;
            }
            if (currentWait() == 0) {
                pause.sleep(FIRST_BACKOFF_MS);
            }
            return null;
        }
        for (JsonNode o : observations) {
            boolean backlog = options.catchUp() && o.path("id").asLong(Long.MAX_VALUE) <= backlogHead;
            print(Lines.observation(backlog ? "CATCHUP" : "OBS", o));
        }
        lastIdle = null;
        long next = page.path("next").asLong();
        position = next;
        if (catching && next > backlogHead) {
            catching = false;
        }
        if (options.ackOnPrint()) {
            Integer exit = ack(next);
            if (exit != null) {
                return exit;
            }
        } else {
            print(Lines.next(next, false));
        }
        return options.once() ? Exit.OK : null;
    }

    private Integer ack(long next) throws InterruptedException {
        String path = "subscriptions/" + MonitorClient.segment(subscription) + "/ack";
        while (true) {
            MonitorClient.Reply reply =
                    request(() -> api.post(path, new io.monitorbackbone.protocol.request.Ack(next).toJson(), token));
            if (reply == null) {
                if (options.once()) {
                    return Exit.UNREACHABLE;
                }
                continue;
            }
            if (reply.ok()) {
                committed = reply.json() == null
                        ? next
                        : reply.json().path("cursor").asLong(next);
                print(Lines.next(next, true));
                return null;
            }
            if (retired(reply)) {
                print(Lines.retired());
                return Exit.OK;
            }
            print(Lines.error(reply.status(), reply.body()));
            return Exit.REFUSED;
        }
    }

    /**
     * The cursor is below the floor: the observations before it are gone. Say so, show the monitor's state (what the
     * log still supports), and read on from the floor. The server's cursor stays where it is until an ack moves it.
     */
    private Integer expired(JsonNode refusal) throws InterruptedException {
        long floor = refusal.path("retention_floor").asLong();
        Long requested =
                refusal.hasNonNull("requested") ? refusal.get("requested").asLong() : null;
        print(Lines.expired(floor, requested));
        String id = monitor != null ? monitor : monitorFromRelist(Json.text(refusal, "relist"));
        if (id != null) {
            MonitorClient.Reply state =
                    request(() -> api.get("monitors/" + MonitorClient.segment(id) + "/state", null));
            if (state != null && state.ok() && state.json() != null) {
                print(Lines.state(id, state.json()));
            } else if (state != null) {
                print(Lines.stateUnavailable(id, state.status()));
            }
        }
        position = floor;
        return null;
    }

    /** A refusal of a read that already started at the floor it names would repeat forever: treat it as an error. */
    private boolean alreadyAtFloor(JsonNode refusal) {
        return position != null
                && refusal != null
                && refusal.path("retention_floor").asLong(Long.MAX_VALUE) <= position;
    }

    /**
     * One request with the DOWN/UP bookkeeping: returns the answer, or null (after the backoff pause) when the server
     * did not answer or answered 5xx. DOWN is printed once per outage, UP when an answer comes back.
     */
    private MonitorClient.Reply request(Supplier<MonitorClient.Reply> call) throws InterruptedException {
        String problem;
        try {
            MonitorClient.Reply reply;
            try {
                reply = call.get();
            } catch (MonitorClient.Unreachable first) {
                if (down) {
                    throw first;
                }
                // A kept-alive connection that the server closed fails once; a new one tells whether it is really away.
                reply = call.get();
            }
            if (!reply.serverFault()) {
                if (down) {
                    print(Lines.up(position));
                    down = false;
                }
                backoffMs = FIRST_BACKOFF_MS;
                return reply;
            }
            String error = reply.json() == null ? null : Json.text(reply.json(), "error");
            problem = "the server answered " + reply.status() + (error == null ? "" : ": " + error);
        } catch (MonitorClient.Unreachable e) {
            problem = e.getMessage();
        }
        if (!down) {
            print(Lines.down(problem, !options.once()));
            down = true;
        }
        if (!options.once()) {
            pause.sleep(backoffMs);
            backoffMs = Math.min(backoffMs * 2, MAX_BACKOFF_MS);
        }
        return null;
    }

    private String pullPath() {
        List<String> query = new ArrayList<>();
        query.add("wait=" + currentWait());
        query.add("limit=" + (catching ? CATCH_UP_LIMIT : options.limit()));
        if (position != null && position != committed) {
            query.add("cursor=" + position);
        }
        return "subscriptions/" + MonitorClient.segment(subscription) + "/pull?" + String.join("&", query);
    }

    private int currentWait() {
        return catching ? 0 : options.waitSeconds();
    }

    private static boolean retired(MonitorClient.Reply reply) {
        return reply.status() == 404
                && reply.json() != null
                && reply.json().path("retired").asBoolean(false);
    }

    /** {@code monitors/<id>/state} (this server) or {@code monitors/state?id=<id>} (the reference server). */
    static String monitorFromRelist(String relist) {
        if (relist == null) {
            return null;
        }
        Matcher path = Pattern.compile("^/?monitors/([^/?]+)/state").matcher(relist);
        if (path.find()) {
            return URLDecoder.decode(path.group(1), UTF_8);
        }
        Matcher query = Pattern.compile("[?&]id=([^&]+)").matcher(relist);
        return query.find() ? URLDecoder.decode(query.group(1), UTF_8) : null;
    }

    /** A PrintWriter never throws; a line that could not be written must still stop an --ack-on-print. */
    private void print(String line) {
        out.println(line);
        out.flush();
        if (out.checkError()) {
            throw new ReaderGone();
        }
    }

    private static final class ReaderGone extends RuntimeException {
        ReaderGone() {
            super("stdout is closed", null, false, false);
        }
    }
}
