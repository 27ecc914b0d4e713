package io.monitorbackbone.gateway.service;

import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.ProtocolException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * What webhook push may reach and how it retries ({@code MP_PUSH_*}, docs/adr/0016-webhook-push.md). A sink whose host
 * is or resolves to a loopback, private, link-local or otherwise non-public address is refused at subscribe unless
 * {@code MP_PUSH_ALLOW_HOSTS} names the host (or one of its addresses), or is {@code *}.
 *
 * @param allowHosts host names and address literals allowed although not public, lower case; {@code *} allows all
 * @param retryBase  the delay before the first retry; each further retry doubles it
 * @param retryMax   the longest delay between two attempts
 * @param timeout    how long one attempt may take, connecting included
 */
public record PushSettings(Set<String> allowHosts, Duration retryBase, Duration retryMax, Duration timeout) {
    public static final String ALLOW_VARIABLE = "MP_PUSH_ALLOW_HOSTS";
    public static final PushSettings DEFAULT =
            new PushSettings(Set.of(), Duration.ofSeconds(1), Duration.ofMinutes(5), Duration.ofSeconds(10));

    /** How a host name becomes its addresses: the system's resolver, or a test's. */
    @FunctionalInterface
    public interface Resolver {
        InetAddress[] resolve(String host) throws UnknownHostException;
    }

    /** The sink of a push subscription, checked: an absolute http(s) URL whose host may be reached. */
    public URI checkSink(String sink) {
        return checkSink(sink, InetAddress::getAllByName);
    }

    /**
     * {@link #checkSink(String)} with the given resolver. Checked at subscribe and again before every run of deliveries:
     * a name that resolved to a public address when the subscription was made may resolve to a private one later.
     */
    public URI checkSink(String sink, Resolver resolver) {
        if (sink == null || sink.isBlank()) {
            throw ProtocolException.of(ErrorCode.INVALID, "protocol 'http' pushes to `sink`, an http or https URL")
                    .with("sink", null);
        }
        URI uri;
        try {
            uri = new URI(sink);
        } catch (URISyntaxException e) {
            throw refused(sink, "`sink` is not a URL");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")
                || uri.getHost() == null
                || uri.getRawUserInfo() != null) {
            throw refused(sink, "`sink` must be an http or https URL with a host and no user info");
        }
        String host = uri.getHost().toLowerCase(Locale.ROOT);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        if (allowHosts.contains("*") || allowHosts.contains(host)) {
            return uri;
        }
        InetAddress[] addresses;
        try {
            addresses = resolver.resolve(host);
        } catch (UnknownHostException e) {
            throw refused(sink, "the host of `sink` does not resolve");
        }
        for (InetAddress a : addresses) {
            if (!isPublic(a) && !allowHosts.contains(a.getHostAddress().toLowerCase(Locale.ROOT))) {
                throw refused(
                        sink,
                        "`sink` names a loopback, private or link-local address (" + a.getHostAddress()
                                + "), which this server does not push to unless its configuration allows the host");
            }
        }
        return uri;
    }

    /** Whether an address is one anyone on the internet could have: not loopback, private, link-local and the like. */
    static boolean isPublic(InetAddress a) {
        if (a.isAnyLocalAddress()
                || a.isLoopbackAddress()
                || a.isLinkLocalAddress()
                || a.isSiteLocalAddress()
                || a.isMulticastAddress()) {
            return false;
        }
        byte[] b = a.getAddress();
        if (a instanceof Inet4Address) {
            int first = b[0] & 0xff;
            int second = b[1] & 0xff;
            // 0/8 this network, 100.64/10 shared (carrier-grade NAT), 198.18/15 benchmarking, 240/4 reserved.
            return first != 0
                    && !(first == 100 && second >= 64 && second < 128)
                    && !(first == 198 && (second == 18 || second == 19))
                    && first < 240;
        }
        if (a instanceof Inet6Address) {
            // fc00::/7 unique local.
            return (b[0] & 0xfe) != 0xfc;
        }
        return false;
    }

    /** The delay before retry {@code attempt} (1 for the first): doubling from the base, capped, then equal jitter. */
    public Duration backoff(int attempt) {
        long base = Math.max(1, retryBase.toMillis());
        long cap = Math.max(base, retryMax.toMillis());
        long delay = attempt >= 40 ? cap : Math.min(cap, base << Math.max(0, attempt - 1));
        long half = delay / 2;
        return Duration.ofMillis(half + ThreadLocalRandom.current().nextLong(delay - half + 1));
    }

    private static ProtocolException refused(String sink, String why) {
        return ProtocolException.of(ErrorCode.INVALID, why).with("sink", sink);
    }
}
