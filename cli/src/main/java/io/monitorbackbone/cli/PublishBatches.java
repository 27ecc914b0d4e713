package io.monitorbackbone.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.Json;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code mp publish --batch}: the observations sent as batch publishes ({@code io.monitorbackbone/batch-publish}) in
 * their order, each request within the server's limits (1,000 observations, 1 MiB), each reply printed as it came.
 * Exit 0 when every observation was accepted, 1 when any was refused (its refusal is in the reply) or a request was,
 * 3 when the server did not answer; a refused or unanswered request stops the rest.
 */
final class PublishBatches {
    static final int MAX_OBSERVATIONS = 1_000;
    static final int MAX_BYTES = 1_048_576;
    /** Room for {@code {"observations":[ ]}} and the commas. */
    private static final int ENVELOPE = 64;

    private PublishBatches() {}

    static int send(CommandSpec spec, MonitorClient api, String monitor, List<ObjectNode> items, String token) {
        String path = "monitors/" + MonitorClient.segment(monitor) + "/observations/batch";
        boolean allAccepted = true;
        int from = 0;
        while (from < items.size()) {
            ObjectNode request = Json.object();
            ArrayNode chunk = request.putArray("observations");
            long bytes = ENVELOPE;
            int to = from;
            while (to < items.size() && chunk.size() < MAX_OBSERVATIONS) {
                long size = Json.bytes(items.get(to)).length + 1;
                if (!chunk.isEmpty() && bytes + size > MAX_BYTES) {
                    break;
                }
                chunk.add(items.get(to));
                bytes += size;
                to++;
            }
            MonitorClient.Reply reply = api.post(path, request, token);
            if (!reply.ok()) {
                return Answers.print(spec, api, reply);
            }
            PrintWriter out = spec.commandLine().getOut();
            out.println(reply.body().strip());
            out.flush();
            allAccepted &= reply.json() != null && reply.json().path("accepted").asInt() == chunk.size();
            from = to;
        }
        return allAccepted ? Exit.OK : Exit.REFUSED;
    }
}
