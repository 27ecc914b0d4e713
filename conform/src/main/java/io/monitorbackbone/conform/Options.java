package io.monitorbackbone.conform;

import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** What a run was asked to do: command-line options, each with an environment variable behind it. */
/** {@code only} holds upper-case check ids; empty means every check. */
record Options(URI base, String adminToken, String registrationToken, boolean json, Set<String> only, boolean help) {

    static final String DEFAULT_BASE = "http://127.0.0.1:8130";

    static final String USAGE = """
            usage: conform [--base URL] [--admin-token T] [--registration-token T] [--json] [--only C05,C07]
              --base URL                 the server (default %s, env MP_BASE)
              --admin-token T            enables C17, which compacts through POST /mp/v0/admin/compact (env MP_ADMIN_TOKEN)
              --registration-token T     for servers that require it to create monitors (env MP_REGISTRATION_TOKEN)
              --json                     print an array of {id, title, status, reason, ms} instead of lines
              --only IDS                 run only these checks (comma-separated, e.g. C05,C07)
            Exit status: 0 when no check failed, 1 when one did, 2 on a usage error.""".formatted(DEFAULT_BASE);

    /** A command line the runner cannot act on. */
    static final class UsageError extends RuntimeException {
        UsageError(String message) {
            super(message, null, false, false);
        }
    }

    static Options parse(String[] args, Map<String, String> env) {
        String base = blankToNull(env.get("MP_BASE"));
        String admin = blankToNull(env.get("MP_ADMIN_TOKEN"));
        String registration = blankToNull(env.get("MP_REGISTRATION_TOKEN"));
        boolean json = false;
        boolean help = false;
        Set<String> only = new LinkedHashSet<>();
        List<String> rest = new ArrayList<>(List.of(args));
        while (!rest.isEmpty()) {
            String arg = rest.remove(0);
            String name = arg;
            String inline = null;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                name = arg.substring(0, eq);
                inline = arg.substring(eq + 1);
            }
            switch (name) {
                case "--base" -> base = value(name, inline, rest);
                case "--admin-token" -> admin = value(name, inline, rest);
                case "--registration-token" -> registration = value(name, inline, rest);
                case "--only" -> {
                    for (String id : value(name, inline, rest).split(",")) {
                        if (!id.isBlank()) {
                            only.add(id.trim().toUpperCase(Locale.ROOT));
                        }
                    }
                }
                case "--json" -> json = flag(name, inline);
                case "--help", "-h" -> help = flag(name, inline);
                default -> throw new UsageError("unknown option " + arg);
            }
        }
        return new Options(
                baseUri(base == null ? DEFAULT_BASE : base), admin, registration, json, Set.copyOf(only), help);
    }

    private static URI baseUri(String text) {
        URI uri;
        try {
            uri = URI.create(text.endsWith("/") ? text.substring(0, text.length() - 1) : text);
        } catch (IllegalArgumentException e) {
            throw new UsageError("--base is not a URL: " + text);
        }
        if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme()) || uri.getHost() == null) {
            throw new UsageError("--base must be an http:// or https:// URL with a host: " + text);
        }
        return uri;
    }

    private static String value(String name, String inline, List<String> rest) {
        if (inline != null) {
            return inline;
        }
        if (rest.isEmpty() || rest.get(0).startsWith("--")) {
            throw new UsageError(name + " needs a value");
        }
        return rest.remove(0);
    }

    private static boolean flag(String name, String inline) {
        if (inline != null) {
            throw new UsageError(name + " takes no value");
        }
        return true;
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
