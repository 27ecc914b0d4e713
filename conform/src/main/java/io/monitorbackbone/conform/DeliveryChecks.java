package io.monitorbackbone.conform;

import static io.monitorbackbone.conform.CheckClient.await;
import static io.monitorbackbone.conform.CheckClient.expect;
import static io.monitorbackbone.conform.CheckClient.fail;
import static io.monitorbackbone.conform.CheckClient.ids;
import static io.monitorbackbone.conform.CheckClient.observations;
import static io.monitorbackbone.conform.CheckClient.refused;
import static io.monitorbackbone.conform.CheckClient.that;
import static io.monitorbackbone.conform.J.a;
import static io.monitorbackbone.conform.J.o;
import static io.monitorbackbone.conform.WriteChecks.NOTE;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** The reader's side: pull never moves the cursor, ack only forwards, filters narrow, lag is the reader's, retention. */
final class DeliveryChecks {
    private static final Duration MUTE_DEADLINE = Duration.ofSeconds(20);

    private DeliveryChecks() {}

    static List<Check> all() {
        return List.of(
                new Check("C05", "pull twice, same batch, cursor unmoved", DeliveryChecks::c05),
                new Check("C06", "ack below → CURSOR_BACKWARDS, equal → same result", DeliveryChecks::c06),
                new Check("C07", "narrow filter, same head", DeliveryChecks::c07),
                new Check("C08", "inline filter never widens", DeliveryChecks::c08),
                new Check("C09", "CloudEvent attributes present", DeliveryChecks::c09),
                new Check("C10", "sequence 20 digits, strictly increasing", DeliveryChecks::c10),
                new Check("C17", "cursor below floor → 410 CURSOR_EXPIRED (needs admin compact)", DeliveryChecks::c17),
                Check.stricter(
                        "C17",
                        "committed cursor below floor → 410 CURSOR_EXPIRED, seek to the floor recovers (needs admin compact)",
                        DeliveryChecks::c17Committed),
                new Check("C19", "mute retirement, will observation, cursor kept on re-subscribe", DeliveryChecks::c19),
                new Check("C20", "ack idempotent", DeliveryChecks::c20),
                new Check("C22", "acked observations do not come back", DeliveryChecks::c22),
                new Check(
                        "C25",
                        "caught-up lag 0, another monitor's traffic moves neither lag nor head",
                        DeliveryChecks::c25),
                new Check("C27", "non-integer cursor → 400 in ack and pull", DeliveryChecks::c27));
    }

    /** A monitor with {@code n} notes and a reader that starts at the first of them. */
    private record Queue(CheckClient.Monitor monitor, CheckClient.Reader reader, List<Long> seqs) {}

    private static Queue queue(CheckClient api, int n) {
        CheckClient.Monitor m = api.monitor(o());
        List<Long> seqs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            seqs.add(api.note(m, "n-" + i));
        }
        CheckClient.Reader r = api.subscribe(m, o("subscriber", "agent:reader", "from", seqs.get(0)), null);
        return new Queue(m, r, seqs);
    }

    static String c05(CheckClient api) {
        Queue q = queue(api, 3);
        long cursor = q.reader().served().path("cursor").asLong();

        JsonNode first = api.pull(q.reader(), "?limit=2");
        JsonNode second = api.pull(q.reader(), "?limit=2");

        that(!ids(first).isEmpty(), "the first pull returned nothing although 3 observations wait");
        that(
                ids(first).equals(ids(second)),
                "two pulls returned different batches: " + ids(first) + " then " + ids(second));
        that(
                first.path("cursor").asLong() == cursor && second.path("cursor").asLong() == cursor,
                "the cursor moved from " + cursor + " to " + first.path("cursor") + " and " + second.path("cursor")
                        + " without an ack");
        that(
                ids(first).get(0).equals(String.valueOf(q.seqs().get(0))),
                "the batch starts at " + ids(first).get(0) + ", not at the cursor's observation "
                        + q.seqs().get(0));
        return "both pulls returned " + ids(first) + " and the cursor stayed " + cursor;
    }

    static String c06(CheckClient api) {
        Queue q = queue(api, 3);
        JsonNode pulled = api.pull(q.reader(), "?limit=2");
        long next = pulled.path("next").asLong();
        that(next > q.seqs().get(0), "pull answered next=" + next + ", not past the observations it returned");

        JsonNode acked = api.ack(q.reader(), next);
        Wire.Reply again = api.ackRaw(q.reader(), J.node(next));
        Wire.Reply below = api.ackRaw(q.reader(), J.node(next - 1));
        JsonNode after = api.pull(q.reader(), "?limit=1");

        that(acked.path("cursor").asLong() == next, "ack " + next + " answered cursor " + acked.path("cursor"));
        expect(again, 200);
        that(again.json().equals(acked), "the equal ack answered " + again.body() + " instead of " + acked);
        refused(below, 409, "CURSOR_BACKWARDS");
        that(
                after.path("cursor").asLong() == next,
                "after the refused ack the cursor is " + after.path("cursor") + ", not " + next);
        return "ack " + next + " twice gives the same answer; ack " + (next - 1)
                + " is CURSOR_BACKWARDS and changes nothing";
    }

    static String c07(CheckClient api) {
        String a = CheckClient.BASE_TYPE + ".a";
        String b = CheckClient.BASE_TYPE + ".b";
        CheckClient.Monitor m = api.monitor(o("types", a(a, b)));
        long first = CheckClient.seq(api.publish(m, o("type", a, "subject", "1")));
        api.publish(m, o("type", b, "subject", "2"));
        api.publish(m, o("type", a, "subject", "3"));
        CheckClient.Reader narrow =
                api.subscribe(m, o("subscriber", "agent:narrow", "from", first, "filter", o("types", a(a))), null);
        CheckClient.Reader wide = api.subscribe(m, o("subscriber", "agent:wide", "from", first), null);

        JsonNode n = api.pull(narrow, "");
        JsonNode w = api.pull(wide, "");
        JsonNode monitor =
                expect(api.wire.get("/monitors/" + m.id(), m.ownerToken()), 200).json();

        that(
                n.path("head").equals(w.path("head")),
                "the narrow reader sees head " + n.path("head") + ", the wide one " + w.path("head"));
        that(
                n.path("head").asLong() == monitor.path("head").asLong(),
                "pull says head " + n.path("head") + ", the monitor says " + monitor.path("head"));
        List<String> types = observations(n).stream()
                .map(o -> o.path("type").asText())
                .distinct()
                .toList();
        that(
                types.equals(List.of(a)) && observations(n).size() == 2,
                "the narrow reader got " + ids(n) + " of types " + types + ", expected the two " + a);
        that(
                n.path("lag").asLong() == 2,
                "the narrow reader's lag is " + n.path("lag") + ", expected 2 (its filter included)");
        that(w.path("lag").asLong() >= 3, "the wide reader's lag is " + w.path("lag") + ", expected at least 3");
        return "narrow and wide readers see head " + n.path("head") + "; lag " + n.path("lag") + " vs " + w.path("lag");
    }

    /**
     * The protocol's C08: an inline filter that names a value outside the stored one is refused {@code 400 INVALID_FILTER}
     * naming {@code key} and {@code stored}. Positive control: the stored filter repeated inline is served. Where the
     * protocol leaves a choice (a key the stored filter leaves open), either answer passes, but nothing outside the stored
     * filter may be delivered.
     */
    static String c08(CheckClient api) {
        String note = CheckClient.BASE_TYPE + ".note";
        String build = CheckClient.BASE_TYPE + ".build";
        String other = "org.elsewhere.thing";
        String wildcard = CheckClient.BASE_TYPE + ".*";
        CheckClient.Monitor m = api.monitor(o("types", a(note, build, other)));
        long first = CheckClient.seq(api.publish(m, o("type", note, "subject", "n")));
        api.publish(m, o("type", build, "subject", "b"));
        api.publish(m, o("type", other, "subject", "o"));
        CheckClient.Reader reader =
                api.subscribe(m, o("subscriber", "agent:r", "from", first, "filter", o("types", a(wildcard))), null);

        JsonNode stored = api.pull(reader, "?limit=200");
        Wire.Reply same = api.pullRaw(reader, "?limit=200&types=" + wildcard);
        Wire.Reply outside = api.pullRaw(reader, "?limit=200&types=" + other);
        Wire.Reply added = api.pullRaw(reader, "?limit=200&types=" + wildcard + "," + other);
        Wire.Reply subjects = api.pullRaw(reader, "?limit=200&subjects=o");

        List<String> storedTypes =
                observations(stored).stream().map(o -> o.path("type").asText()).toList();
        that(
                storedTypes.equals(List.of(note, build)),
                "the stored filter alone delivered " + storedTypes + ", expected [" + note + ", " + build + "]");
        List<String> sameTypes = observations(expect(same, 200).json()).stream()
                .map(o -> o.path("type").asText())
                .toList();
        that(
                sameTypes.equals(storedTypes),
                same.describe() + " (the stored filter repeated inline) delivered " + sameTypes + ", expected "
                        + storedTypes);
        for (Wire.Reply r : List.of(outside, added)) {
            refused(r, 400, "INVALID_FILTER");
            that(
                    "types".equals(r.json().path("key").asText(null)),
                    r.describe() + " does not name key 'types': " + Wire.cut(r.body(), 200));
            that(
                    r.json().hasNonNull("stored"),
                    r.describe() + " does not name the stored filter: " + Wire.cut(r.body(), 200));
        }
        if (subjects.status() == 400) {
            refused(subjects, 400, "INVALID_FILTER");
        } else {
            expect(subjects, 200);
            for (JsonNode o : observations(subjects.json())) {
                that(
                        !o.path("type").asText().equals(other),
                        subjects.describe() + " delivered " + other + " although the stored filter excludes it");
            }
        }
        return "an inline value outside the stored filter is INVALID_FILTER naming key and stored (alone and added to the"
                + " stored wildcard); the stored filter repeated inline is served; subjects=o "
                + (subjects.status() == 400 ? "refused" : "delivered nothing outside the stored filter");
    }

    private static final List<String> ATTRIBUTES = List.of(
            "specversion",
            "id",
            "source",
            "type",
            "time",
            "datacontenttype",
            "data",
            "sequence",
            "tier",
            "origin",
            "verified",
            "horizon",
            "actor");

    private static void cloudEvent(JsonNode o, CheckClient.Monitor m, String where) {
        for (String attribute : ATTRIBUTES) {
            that(
                    o.hasNonNull(attribute),
                    where + " lacks the attribute " + attribute + ": " + Wire.cut(o.toString(), 160));
        }
        that("1.0".equals(o.get("specversion").asText()), where + " has specversion " + o.get("specversion"));
        that(
                m.source().equals(o.get("source").asText()),
                where + " has source " + o.get("source") + ", not " + m.source());
        that(
                "hour".equals(o.get("horizon").asText()),
                where + " has horizon " + o.get("horizon") + ", not the monitor's 'hour'");
        try {
            OffsetDateTime.parse(o.get("time").asText());
        } catch (DateTimeParseException e) {
            throw fail(where + " has time " + o.get("time") + ", not an RFC 3339 timestamp");
        }
        for (String p : List.of("origin", "tier", "verification", "actor")) {
            that(o.at("/data/provenance/" + p).isTextual(), where + " lacks data.provenance." + p);
        }
        that(
                o.get("tier").asText().equals(o.at("/data/provenance/tier").asText())
                        && o.get("origin")
                                .asText()
                                .equals(o.at("/data/provenance/origin").asText())
                        && o.get("verified")
                                .asText()
                                .equals(o.at("/data/provenance/verification").asText()),
                where + ": the tier/origin/verified attributes disagree with data.provenance");
    }

    static String c09(CheckClient api) {
        CheckClient.Monitor m = api.monitor(o("horizon", "hour"));
        JsonNode published = api.publish(
                m, o("type", NOTE, "subject", "ce", "actor", "probe:ce", "origin", "probe", "data", o("reading", 7)));
        long seq = CheckClient.seq(published);
        CheckClient.Reader r = api.subscribe(m, o("subscriber", "agent:ce", "from", seq), null);

        JsonNode served = observations(api.pull(r, "?limit=1")).stream()
                .findFirst()
                .orElseThrow(() -> fail("a pull from the published seq " + seq + " returned nothing"));

        cloudEvent(published, m, "the publish answer");
        cloudEvent(served, m, "the pulled observation " + seq);
        that(
                served.get("id").asText().equals(String.valueOf(seq)),
                "the pull returned id " + served.get("id") + ", not " + seq);
        that(
                "ce".equals(served.path("subject").asText())
                        && served.at("/data/reading").asInt() == 7,
                "the pulled observation lost its subject or data: " + Wire.cut(served.toString(), 160));
        return "the publish answer and the pulled observation carry every CloudEvent and protocol attribute";
    }

    static String c10(CheckClient api) {
        CheckClient.Monitor m = api.monitor(o());
        List<Long> published = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            published.add(api.note(m, "s-" + i));
        }

        List<JsonNode> log = api.log(m);

        String previous = "";
        for (JsonNode o : log) {
            String sequence = o.path("sequence").asText();
            that(sequence.matches("[0-9]{20}"), "observation " + o.path("id") + " has sequence '" + sequence + "'");
            that(
                    Long.parseLong(sequence) == Long.parseLong(o.path("id").asText()),
                    "sequence " + sequence + " is not the seq of id " + o.path("id"));
            that(sequence.compareTo(previous) > 0, "sequence " + sequence + " follows " + previous + " in the log");
            previous = sequence;
        }
        List<Long> seen = log.stream().map(CheckClient::seq).toList();
        that(seen.containsAll(published), "the log " + seen + " lacks published seqs " + published);
        that(
                published.equals(published.stream().sorted().distinct().toList()),
                "publishes answered seqs " + published + ", not strictly increasing");
        return log.size() + " observations with 20-digit sequences in strictly increasing order";
    }

    /** A queue of 5 notes whose monitor was compacted up to its third; the compacted seq is {@code seqs.get(2)}. */
    private static Queue compacted(CheckClient api) {
        String admin = api.options().adminToken();
        if (admin == null) {
            throw new CheckSkipped(
                    "needs --admin-token (or MP_ADMIN_TOKEN) to compact through POST /mp/v0/admin/compact");
        }
        Queue q = queue(api, 5);
        long s1 = q.seqs().get(0);
        JsonNode before = api.pull(q.reader(), "?limit=1");
        that(
                ids(before).equals(List.of(String.valueOf(s1))),
                "before compaction the reader got " + ids(before) + ", not [" + s1 + "]");
        expect(
                api.wire.post(
                        "/admin/compact",
                        o("upto_seq", q.seqs().get(2), "monitor", q.monitor().id()),
                        admin),
                200);
        return q;
    }

    /**
     * The protocol's C17: a replay ({@code ?cursor=}) below the retention floor is 410 CURSOR_EXPIRED with the floor.
     * Positive control: a replay from the floor is served.
     */
    static String c17(CheckClient api) {
        Queue q = compacted(api);
        long s1 = q.seqs().get(0);
        long s3 = q.seqs().get(2);

        Wire.Reply replay = api.pullRaw(q.reader(), "?cursor=" + s1);

        refused(replay, 410, "CURSOR_EXPIRED");
        long floor = replay.json().path("retention_floor").asLong(-1);
        that(
                floor > s3,
                replay.describe() + " names retention_floor " + replay.json().get("retention_floor")
                        + ", expected above the compacted seq " + s3);
        JsonNode fromFloor = api.pull(q.reader(), "?limit=1&cursor=" + floor);
        that(
                !ids(fromFloor).isEmpty() && Long.parseLong(ids(fromFloor).get(0)) >= floor,
                "a replay from the floor " + floor + " returned " + ids(fromFloor));
        return "after compacting up to " + s3 + " a replay from " + s1 + " is CURSOR_EXPIRED with retention_floor "
                + floor + "; a replay from the floor is served";
    }

    /**
     * Stricter than the protocol (C17+): a pull from a committed cursor below the floor is refused too, where the
     * reference server serves from the floor without a word, and seeking to the floor recovers.
     */
    static String c17Committed(CheckClient api) {
        Queue q = compacted(api);
        long s1 = q.seqs().get(0);
        long s3 = q.seqs().get(2);

        Wire.Reply expired = api.pullRaw(q.reader(), "");

        refused(expired, 410, "CURSOR_EXPIRED");
        long floor = expired.json().path("retention_floor").asLong(-1);
        that(
                floor > s3,
                expired.describe() + " names retention_floor " + expired.json().get("retention_floor")
                        + ", expected above the compacted seq " + s3);
        expect(
                api.wire.post(
                        "/subscriptions/" + q.reader().id() + "/seek",
                        o("cursor", floor, "reason", "relist after expiry"),
                        q.reader().token()),
                200);
        JsonNode recovered = api.pull(q.reader(), "?limit=1");
        that(
                !ids(recovered).isEmpty() && Long.parseLong(ids(recovered).get(0)) >= floor,
                "after seeking to the floor " + floor + " the reader got " + ids(recovered));
        return "after compacting up to " + s3 + " the committed cursor " + s1
                + " is CURSOR_EXPIRED with retention_floor " + floor + "; seeking to the floor recovers";
    }

    static String c19(CheckClient api) {
        Queue q = queue(api, 1);
        long first = q.seqs().get(0);
        CheckClient.Reader mute = api.subscribe(
                q.monitor(), o("subscriber", "agent:mute", "from", first, "retire_after_mute_seconds", 1), null);
        long kept = first + 1;
        api.ack(mute, kept);
        CheckClient.Reader witness = api.subscribe(
                q.monitor(),
                o("subscriber", "agent:witness", "filter", o("types", a("ai.mentu.monitor.subscription_retired"))),
                q.monitor().ownerToken());

        JsonNode will = await(
                "the mute retirement of " + mute.id(),
                MUTE_DEADLINE,
                () -> api.readAll(witness, "").stream()
                        .filter(o -> mute.id()
                                .equals(o.at("/data/payload/subscription").asText()))
                        .findFirst()
                        .orElse(null));
        Wire.Reply retired = api.pullRaw(mute, "");
        CheckClient.Reader back = api.subscribe(q.monitor(), o("subscriber", "agent:mute"), mute.token());
        JsonNode pulled = api.pull(back, "?limit=1");

        refused(retired, 404, "NOT_FOUND");
        that(back.id().equals(mute.id()), "re-subscribing answered subscription " + back.id() + ", not " + mute.id());
        that(
                pulled.path("cursor").asLong() == kept,
                "the re-subscribed cursor is " + pulled.path("cursor") + ", not the kept " + kept);
        JsonNode cursor = will.at("/data/payload/cursor");
        that(
                cursor.isMissingNode() || cursor.asLong() == kept,
                "the will observation records cursor " + cursor + ", not " + kept);
        return "a subscription silent for 1 s was retired (will at seq "
                + will.path("id").asText() + "), refuses pulls, and re-subscribing restores cursor " + kept;
    }

    static String c20(CheckClient api) {
        Queue q = queue(api, 4);
        long target = q.seqs().get(2);

        List<JsonNode> answers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            answers.add(api.ack(q.reader(), target));
        }
        JsonNode pulled = api.pull(q.reader(), "?limit=1");
        JsonNode forward = api.ack(q.reader(), target + 1);

        that(answers.stream().distinct().count() == 1, "three equal acks answered differently: " + answers);
        that(
                answers.get(0).path("cursor").asLong() == target,
                "ack " + target + " answered cursor " + answers.get(0).path("cursor"));
        that(pulled.path("cursor").asLong() == target, "after the acks the cursor is " + pulled.path("cursor"));
        that(
                ids(pulled).equals(List.of(String.valueOf(target))),
                "after acking " + target + " the pull returned " + ids(pulled));
        that(
                forward.path("cursor").asLong() == target + 1,
                "a later ack to " + (target + 1) + " answered " + forward.path("cursor"));
        return "ack " + target + " three times: the same answer and the same cursor; the next ack still moves forward";
    }

    static String c22(CheckClient api) {
        Queue q = queue(api, 3);
        JsonNode first = api.pull(q.reader(), "?limit=200");
        long next = first.path("next").asLong();
        Set<String> acked = Set.copyOf(ids(first));

        api.ack(q.reader(), next);
        JsonNode afterAck = api.pull(q.reader(), "?limit=200");
        long later = api.note(q.monitor(), "later");
        JsonNode afterPublish = api.pull(q.reader(), "?limit=200");

        that(acked.size() >= 3, "the first pull returned " + acked + ", not the 3 waiting observations");
        for (JsonNode pulled : List.of(afterAck, afterPublish)) {
            for (String id : ids(pulled)) {
                that(!acked.contains(id), "acked observation " + id + " came back: " + ids(pulled));
            }
        }
        that(
                ids(afterPublish).contains(String.valueOf(later)),
                "the observation published after the ack (" + later + ") was not delivered: " + ids(afterPublish));
        return "after ack " + next + " none of " + acked.size() + " acked observations came back; the new one " + later
                + " did";
    }

    static String c25(CheckClient api) {
        Queue q = queue(api, 2);
        CheckClient.Monitor other = api.monitor(o());
        api.ack(q.reader(), api.pull(q.reader(), "?limit=200").path("next").asLong());
        JsonNode caughtUp = api.pull(q.reader(), "");
        long head = caughtUp.path("head").asLong();

        for (int i = 0; i < 5; i++) {
            api.note(other, "traffic-" + i);
        }
        JsonNode afterTraffic = api.pull(q.reader(), "");
        long monitorHead = expect(api.wire.get("/monitors/" + q.monitor().id(), null), 200)
                .json()
                .path("head")
                .asLong();
        long own = api.note(q.monitor(), "own");
        JsonNode afterOwn = api.pull(q.reader(), "");

        that(
                caughtUp.path("lag").asLong() == 0 && observations(caughtUp).isEmpty(),
                "a caught-up reader has lag " + caughtUp.path("lag") + " and " + ids(caughtUp));
        that(
                afterTraffic.path("lag").asLong() == 0
                        && afterTraffic.path("head").asLong() == head
                        && monitorHead == head,
                "another monitor's 5 publishes moved lag to " + afterTraffic.path("lag") + " and head from " + head
                        + " to " + afterTraffic.path("head") + " (monitor: " + monitorHead + ")");
        that(
                afterOwn.path("lag").asLong() >= 1 && afterOwn.path("head").asLong() >= own,
                "the monitor's own publish " + own + " left lag " + afterOwn.path("lag") + " and head "
                        + afterOwn.path("head"));
        return "caught up at head " + head
                + " with lag 0; another monitor's traffic changed neither; its own publish did";
    }

    static String c27(CheckClient api) {
        Queue q = queue(api, 2);
        long s = q.seqs().get(0);
        List<String> badPulls = List.of("abc", "1.5", "-1");
        List<JsonNode> badAcks = List.of(J.node("abc"), J.node(1.5), J.node(-1), J.node(true));

        for (String cursor : badPulls) {
            refused(api.pullRaw(q.reader(), "?cursor=" + cursor), 400, "INVALID");
        }
        for (JsonNode cursor : badAcks) {
            refused(api.ackRaw(q.reader(), cursor), 400, "INVALID");
        }
        JsonNode replay = api.pull(q.reader(), "?cursor=" + s);
        that(ids(replay).contains(String.valueOf(s)), "a replay from cursor " + s + " returned " + ids(replay));
        that(api.ack(q.reader(), s + 1).path("cursor").asLong() == s + 1, "a valid ack was not applied");
        return "cursors " + badPulls + " refused in pull and " + badAcks + " in ack; integer cursors accepted";
    }
}
