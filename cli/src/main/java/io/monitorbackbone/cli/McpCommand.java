package io.monitorbackbone.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code mp mcp}: the gateway's MCP tools for hosts that launch MCP servers as processes (the stdio transport). */
@Command(
        name = "mcp",
        description = {
            "Serve MCP over stdio (one JSON-RPC message per line on stdin/stdout) for an MCP host such as "
                    + "Claude Code: the same 17 tools as the server's /mcp, each call sent to --base's POST /mp/v0/rpc, and "
                    + "the resources monitor://{id}/definition|state. --token (or $MP_TOKEN) is the token of a tool call "
                    + "without a `token` argument and of resource reads without ?token=. Logs go to stderr only.",
            ""
        },
        footer = {
            "",
            "Runs until stdin ends; exit status 0. Resource subscriptions are not offered: wait with "
                    + "monitor_pull's `wait`."
        })
final class McpCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    ServerOptions server;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        // stdout is the MCP channel: anything printed to System.out by accident lands on stderr instead.
        System.setOut(new PrintStream(System.err, true, UTF_8));
        MonitorClient api = server.api();
        err.println("mp mcp: serving MCP on stdio for " + api.base() + " (tool calls go to " + api.base()
                + MonitorClient.PREFIX + "rpc)");
        err.flush();
        return new McpStdio(McpStdio.over(api), server.optionalToken(), out, err)
                .run(new InputStreamReader(System.in, UTF_8));
    }
}
