package io.monitorbackbone.gateway;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Who this process is among the processes on one cluster ({@code MP_INSTANCE_ID}): the static member id of its hosted
 * leases and projector instances, the name of the leases' state directory, and so, through the Streams process id kept
 * there, of their transactional ids. Two live processes with one id take each other's memberships; the default, host
 * name and HTTP port, differs between pods and between processes on one host.
 */
public final class InstanceId {
    public static final String VARIABLE = "MP_INSTANCE_ID";
    /**
     * Kafka's characters for a group instance id (and a topic name); shorter than its 249 so that what Streams appends
     * (a thread's number) and what the state directories add still fit.
     */
    static final Pattern ALLOWED = Pattern.compile("[A-Za-z0-9._-]{1,200}");

    private InstanceId() {}

    /**
     * The configured id, or host name + "-" + HTTP port.
     *
     * @throws IllegalArgumentException naming the variable, for an id Kafka would refuse
     */
    public static String resolve(Optional<String> configured, int httpPort) {
        String id = configured.map(String::trim).filter(s -> !s.isEmpty()).orElseGet(() -> hostName() + "-" + httpPort);
        return validate(id, configured.isPresent() && !configured.get().isBlank());
    }

    static String validate(String id, boolean configured) {
        if (!ALLOWED.matcher(id).matches() || id.equals(".") || id.equals("..")) {
            String from = configured
                    ? VARIABLE + " '" + id + "'"
                    : "the default instance id '" + id + "' (host name and port)";
            throw new IllegalArgumentException(from + " is not a Kafka member id: use 1-200 of A-Z a-z 0-9 . _ -"
                    + (configured ? "" : ", and set " + VARIABLE));
        }
        return id;
    }

    /** The host name; a host whose name does not resolve is named by the environment, then "localhost". */
    static String hostName() {
        try {
            String name = InetAddress.getLocalHost().getHostName();
            if (name != null && !name.isBlank()) {
                return name;
            }
        } catch (UnknownHostException e) {
            // below
        }
        String env = System.getenv("HOSTNAME");
        return env != null && !env.isBlank() ? env.trim() : "localhost";
    }
}
