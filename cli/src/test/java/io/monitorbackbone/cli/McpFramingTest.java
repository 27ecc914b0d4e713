package io.monitorbackbone.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.mcp.McpAnswers;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import org.junit.jupiter.api.Test;

/** One JSON-RPC message per line: what a line is, and how a message goes out. */
class McpFramingTest {

    @Test
    void aRequestANotificationAndAResponseAreToldApart() {
        McpFraming.Frame request =
                McpFraming.read("{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"ping\",\"params\":{\"x\":1}}");
        assertThat(request).isInstanceOf(McpFraming.Request.class);
        McpFraming.Request r = (McpFraming.Request) request;
        assertThat(r.id().asText()).isEqualTo("a");
        assertThat(r.method()).isEqualTo("ping");
        assertThat(r.params().get("x").asInt()).isEqualTo(1);

        McpFraming.Frame notification =
                McpFraming.read("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\",\"params\":7}");
        assertThat(notification).isInstanceOf(McpFraming.Notification.class);
        assertThat(((McpFraming.Notification) notification).params().isObject())
                .as("params that are no object are none")
                .isTrue();

        assertThat(McpFraming.read("{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}"))
                .isInstanceOf(McpFraming.Ignored.class);
        assertThat(McpFraming.read("   ")).isInstanceOf(McpFraming.Ignored.class);
    }

    @Test
    void linesThatAreNoMessageAreRefusedWithJsonRpcsCodes() {
        assertThat(refusal("{not json")).isEqualTo(McpAnswers.PARSE_ERROR);
        assertThat(refusal("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]"))
                .isEqualTo(McpAnswers.INVALID_REQUEST);
        assertThat(refusal("{\"jsonrpc\":\"2.0\",\"id\":1}")).isEqualTo(McpAnswers.INVALID_REQUEST);
        assertThat(refusal("{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}"))
                .isEqualTo(McpAnswers.INVALID_REQUEST);
        McpFraming.Refused noMethod = (McpFraming.Refused) McpFraming.read("{\"jsonrpc\":\"2.0\",\"id\":9}");
        assertThat(noMethod.reply().get("id").asInt())
                .as("answered under the id it came with")
                .isEqualTo(9);
    }

    @Test
    void aMessageIsOneFlushedLine() {
        StringWriter out = new StringWriter();
        McpFraming channel = new McpFraming(out);
        channel.send(Json.object().put("a", "line\nbreak"));
        channel.send(Json.object().put("b", 2));
        assertThat(out.toString()).isEqualTo("{\"a\":\"line\\nbreak\"}\n{\"b\":2}\n");
        assertThat(channel.closed()).isFalse();
    }

    @Test
    void aStdoutThatIsGoneClosesTheChannelForGood() {
        int[] writes = {0};
        Writer broken = new Writer() {
            @Override
            public void write(char[] cbuf, int off, int len) throws IOException {
                writes[0]++;
                throw new IOException("broken pipe");
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        McpFraming channel = new McpFraming(broken);
        channel.send(Json.object());
        channel.send(Json.object());
        assertThat(channel.closed()).isTrue();
        assertThat(writes[0]).isEqualTo(1);

        PrintWriter swallowing = new PrintWriter(broken);
        McpFraming printing = new McpFraming(swallowing);
        printing.send(Json.object());
        assertThat(printing.closed())
                .as("a PrintWriter swallows the error; checkError tells")
                .isTrue();
    }

    private static int refusal(String line) {
        McpFraming.Frame frame = McpFraming.read(line);
        assertThat(frame).isInstanceOf(McpFraming.Refused.class);
        return ((McpFraming.Refused) frame).reply().at("/error/code").asInt();
    }
}
