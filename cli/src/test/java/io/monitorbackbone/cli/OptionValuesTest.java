package io.monitorbackbone.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Values that look like options are still values: tokens are random base64url, and one in 64 starts with '-'. */
class OptionValuesTest {

    private static CommandLine.ParseResult parse(String... args) {
        StringWriter sink = new StringWriter();
        return Mp.commandLine(new PrintWriter(sink), new PrintWriter(sink)).parseArgs(args);
    }

    @Test
    void aTokenStartingWithADashAndAKnownShortOptionIsTheToken() {
        // "-h" is ack's own help option: without the setting, picocli reads "-huW4..." as -h clustered with more.
        CommandLine.ParseResult parsed =
                parse("ack", "--subscription", "sub-1", "--token", "-huW4LRr3E3-qgr72", "--cursor", "2");
        CommandLine.ParseResult ack = parsed.subcommand();
        assertThat(ack.matchedOptionValue("--token", (String) null)).isEqualTo("-huW4LRr3E3-qgr72");
        assertThat(ack.matchedOptionValue("--cursor", 0L)).isEqualTo(2L);
        assertThat(ack.isUsageHelpRequested()).isFalse();
    }

    @Test
    void aTokenStartingWithADoubleDashIsTheToken() {
        CommandLine.ParseResult ack = parse("ack", "--subscription", "sub-1", "--token", "--cursor", "--cursor", "3")
                .subcommand();
        assertThat(ack.matchedOptionValue("--token", (String) null)).isEqualTo("--cursor");
        assertThat(ack.matchedOptionValue("--cursor", 0L)).isEqualTo(3L);
    }
}
