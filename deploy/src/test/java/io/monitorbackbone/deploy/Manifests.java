package io.monitorbackbone.deploy;

import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.Yaml;

/** The files under deploy/, read as data: the Kubernetes documents, the compose file, the Dockerfile, HAProxy's file. */
final class Manifests {
    static final Path DIR = Path.of(System.getProperty("mp.deploy.dir", "."));
    static final Path K8S = DIR.resolve("k8s");

    private Manifests() {}

    /** Every document of the kustomization: rendered by {@code kubectl kustomize} when it is on PATH, else its files. */
    static List<Map<String, Object>> k8s() {
        return kubectlOnPath() ? kustomize(K8S) : k8sFiles();
    }

    /** The documents of the files the kustomization lists, as written. */
    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> k8sFiles() {
        Map<String, Object> kustomization =
                (Map<String, Object>) new Yaml().load(read(K8S.resolve("kustomization.yaml")));
        List<Map<String, Object>> docs = new ArrayList<>();
        for (Object resource : (List<Object>) kustomization.get("resources")) {
            docs.addAll(documents(read(K8S.resolve(resource.toString()))));
        }
        return docs;
    }

    static boolean kubectlOnPath() {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String dir : path.split(java.io.File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "kubectl"))) {
                return true;
            }
        }
        return false;
    }

    static List<Map<String, Object>> kustomize(Path dir) {
        try {
            Process p = new ProcessBuilder("kubectl", "kustomize", dir.toString())
                    .redirectErrorStream(false)
                    .start();
            p.getOutputStream().close();
            // Read both streams fully before waiting, so a large output cannot block the process.
            java.util.concurrent.CompletableFuture<String> err =
                    java.util.concurrent.CompletableFuture.supplyAsync(() -> readAll(p.getErrorStream()));
            String out = readAll(p.getInputStream());
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("kubectl kustomize " + dir + " did not finish in 120 s");
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException("kubectl kustomize " + dir + " failed: " + err.join());
            }
            return documents(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String readAll(java.io.InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> documents(String yaml) {
        List<Map<String, Object>> docs = new ArrayList<>();
        try (Reader r = new StringReader(yaml)) {
            for (Object doc : new Yaml().loadAll(r)) {
                if (doc != null) {
                    docs.add((Map<String, Object>) doc);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return docs;
    }

    /** compose.yaml, with its anchors and merge keys resolved. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> compose() {
        return (Map<String, Object>) new Yaml().load(read(DIR.resolve("compose.yaml")));
    }

    static List<String> haproxy() {
        return read(DIR.resolve("haproxy.cfg")).lines().toList();
    }

    /** The Dockerfile's instructions, continuation lines joined, comments dropped: {@code [INSTRUCTION, rest]}. */
    static List<String[]> dockerfile() {
        List<String[]> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : read(DIR.resolve("Dockerfile")).lines().toList()) {
            String t = line.strip();
            if (current.isEmpty() && (t.isEmpty() || t.startsWith("#"))) {
                continue;
            }
            if (t.startsWith("#")) {
                continue;
            }
            if (t.endsWith("\\")) {
                current.append(t, 0, t.length() - 1).append(' ');
                continue;
            }
            current.append(t);
            String s = current.toString().strip();
            current.setLength(0);
            int space = s.indexOf(' ');
            out.add(new String[] {
                s.substring(0, space).toUpperCase(java.util.Locale.ROOT),
                s.substring(space + 1).strip()
            });
        }
        return out;
    }

    /** The environment the image sets ({@code ENV k=v ...}). */
    static Map<String, String> imageEnv() {
        Map<String, String> env = new LinkedHashMap<>();
        for (String[] i : dockerfile()) {
            if (i[0].equals("ENV")) {
                for (String pair : i[1].split("\\s+")) {
                    int eq = pair.indexOf('=');
                    env.put(pair.substring(0, eq), unquote(pair.substring(eq + 1)));
                }
            }
        }
        return env;
    }

    private static String unquote(String s) {
        return s.length() >= 2 && s.startsWith("\"") && s.endsWith("\"") ? s.substring(1, s.length() - 1) : s;
    }

    /** The gateway's application.properties, as packaged: every setting, and every variable with its default. */
    record AppProperties(Map<String, String> properties, Map<String, String> variableDefaults) {
        private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Z0-9_]+):([^}]*)}");

        static AppProperties load() {
            try (var in = Objects.requireNonNull(
                    Manifests.class.getClassLoader().getResourceAsStream("application.properties"),
                    "the gateway's application.properties is not on the classpath")) {
                java.util.Properties p = new java.util.Properties();
                p.load(new java.io.InputStreamReader(in, StandardCharsets.UTF_8));
                Map<String, String> properties = new LinkedHashMap<>();
                Map<String, String> defaults = new LinkedHashMap<>();
                for (String name : p.stringPropertyNames()) {
                    String value = p.getProperty(name);
                    properties.put(name, value);
                    Matcher m = VARIABLE.matcher(value);
                    while (m.find()) {
                        defaults.put(m.group(1), m.group(2));
                    }
                }
                return new AppProperties(properties, defaults);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** The variable's default; fails the caller when the code reads no such variable. */
        String defaultOf(String variable) {
            String d = variableDefaults.get(variable);
            if (d == null) {
                throw new AssertionError("the gateway reads no variable " + variable + " (application.properties)");
            }
            return d;
        }
    }

    static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // Navigation of parsed YAML.

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object node, String... path) {
        Object n = node;
        for (String key : path) {
            n = n == null ? null : ((Map<String, Object>) n).get(key);
        }
        return n == null ? Map.of() : (Map<String, Object>) n;
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object node, String... path) {
        Object n = node;
        for (String key : path) {
            n = n == null ? null : ((Map<String, Object>) n).get(key);
        }
        return n == null ? List.of() : (List<Object>) n;
    }

    static String string(Object node, String... path) {
        Object n = node;
        for (String key : path) {
            n = n == null ? null : ((Map<?, ?>) n).get(key);
        }
        return n == null ? null : n.toString();
    }

    static String kind(Map<String, Object> doc) {
        return string(doc, "kind");
    }

    static String name(Map<String, Object> doc) {
        return string(doc, "metadata", "name");
    }

    static List<Map<String, Object>> ofKind(List<Map<String, Object>> docs, String kind) {
        return docs.stream().filter(d -> kind.equals(kind(d))).toList();
    }

    static Map<String, Object> one(List<Map<String, Object>> docs, String kind, String name) {
        return docs.stream()
                .filter(d -> kind.equals(kind(d)) && name.equals(name(d)))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + kind + " " + name + " in the manifests"));
    }

    /** A Quarkus duration as the settings write it: {@code 20s}, {@code 500ms}, {@code 2m}, {@code 0s}. */
    static java.time.Duration duration(String value) {
        Matcher m = Pattern.compile("(\\d+)(ms|s|m|h)").matcher(value.strip());
        if (!m.matches()) {
            throw new AssertionError("not a duration: " + value);
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> java.time.Duration.ofMillis(n);
            case "s" -> java.time.Duration.ofSeconds(n);
            case "m" -> java.time.Duration.ofMinutes(n);
            default -> java.time.Duration.ofHours(n);
        };
    }
}
