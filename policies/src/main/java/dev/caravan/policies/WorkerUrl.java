package dev.caravan.policies;

import java.util.Locale;

/**
 * A worker's base URL taken apart, and the one place that decides which worker URLs are valid. Every part of the gateway
 * that talks to a worker (the data plane, health probes, control calls, KV endpoint templates, the P/D bootstrap host)
 * uses these parts instead of parsing the URL again, so a URL that registers is a URL that is reached.
 *
 * <p>Accepted: {@code http} or {@code https} (any case; written lower-case), then a host that HTTP clients accept and
 * {@link java.net.URI} does not always: DNS-style names that may contain {@code _} (Docker Compose service names,
 * Kubernetes-style {@code worker_a}; SGLang's own tests use them), names ending in the root dot ({@code w1.example.com.}),
 * IPv4 addresses and IPv6 literals in brackets ({@code http://[::1]:8000}); an optional port 1–65535 (default 80 or
 * 443); an optional path prefix (trailing slashes are dropped). Rejected, each with a message naming the URL and the
 * rule: another scheme, a missing host, credentials before the host (use the worker's API key), characters DNS names
 * cannot hold (non-ASCII names must be written in their {@code xn--} form), empty labels ({@code a..b}), an IPv6
 * address without brackets or not well formed, a zone id, a bad port, a query or fragment, whitespace.
 *
 * @param scheme {@code http} or {@code https}
 * @param host   the host as written, IPv6 literals with their brackets (what HTTP clients and SGLang's
 *               {@code bootstrap_host} use)
 * @param port   the port, the scheme's default when the URL names none
 * @param path   the path prefix without trailing slashes, or ""; for {@link #parseEndpoint} the path and query as given
 * @param url    the normalised URL: the scheme lower-case, no trailing slash
 */
public record WorkerUrl(String scheme, String host, int port, String path, String url) {

    /** Parses and validates a worker base URL. */
    public static WorkerUrl parse(String url) {
        return parse(url, false);
    }

    /**
     * Parses an absolute URL of an endpoint on a worker (a health-check URL: the worker's URL plus a path that may carry
     * a query). The host rules are the same; the path and query are kept as given.
     */
    public static WorkerUrl parseEndpoint(String url) {
        return parse(url, true);
    }

    public boolean ssl() {
        return scheme.equals("https");
    }

    private static WorkerUrl parse(String raw, boolean endpoint) {
        if (raw == null || raw.isBlank()) {
            throw new IllegalArgumentException("worker url must not be empty");
        }
        String u = raw.trim();
        int sep = u.indexOf("://");
        String scheme = sep < 0 ? "" : u.substring(0, sep).toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw bad(raw, "must start with http:// or https://");
        }
        for (int i = 0; i < u.length(); i++) {
            if (Character.isWhitespace(u.charAt(i)) || Character.isISOControl(u.charAt(i))) {
                throw bad(raw, "must not contain whitespace or control characters");
            }
        }
        int start = sep + 3;
        int end = start;
        while (end < u.length() && "/?#".indexOf(u.charAt(end)) < 0) {
            end++;
        }
        String rest = u.substring(end);
        if (!endpoint && (rest.indexOf('?') >= 0 || rest.indexOf('#') >= 0)) {
            throw bad(raw, "must not have a query or fragment");
        }
        if (endpoint && rest.indexOf('#') >= 0) {
            rest = rest.substring(0, rest.indexOf('#'));
        }
        if (endpoint && rest.startsWith("?")) {
            rest = "/" + rest;
        }
        if (!endpoint) {
            while (rest.endsWith("/")) {
                rest = rest.substring(0, rest.length() - 1);
            }
        }
        String authority = u.substring(start, end);
        if (authority.indexOf('@') >= 0) {
            throw bad(raw, "must not carry credentials before the host; set the worker's API key instead");
        }
        String host;
        String portText = null;
        if (authority.startsWith("[")) {
            int close = authority.indexOf(']');
            if (close < 0) {
                throw bad(raw, "has an IPv6 address without its closing ']'");
            }
            host = authority.substring(0, close + 1);
            checkIpv6(raw, authority.substring(1, close));
            String after = authority.substring(close + 1);
            if (!after.isEmpty()) {
                if (after.charAt(0) != ':') {
                    throw bad(raw, "must have only ':port' after the IPv6 address");
                }
                portText = after.substring(1);
            }
        } else {
            int colon = authority.indexOf(':');
            if (colon >= 0 && authority.indexOf(':', colon + 1) >= 0) {
                throw bad(raw, "must put an IPv6 address in brackets, e.g. http://[::1]:8000");
            }
            host = colon < 0 ? authority : authority.substring(0, colon);
            portText = colon < 0 ? null : authority.substring(colon + 1);
            checkName(raw, host);
        }
        int port = portText == null ? (scheme.equals("https") ? 443 : 80) : port(raw, portText);
        String normalized = scheme + "://" + authority + rest;
        return new WorkerUrl(scheme, host, port, rest, normalized);
    }

    private static int port(String raw, String text) {
        if (text.isEmpty() || text.length() > 5 || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw bad(raw, "must have a port of 1 to 65535 after ':', was '" + text + "'");
        }
        int port = Integer.parseInt(text);
        if (port < 1 || port > 65535) {
            throw bad(raw, "must have a port of 1 to 65535 after ':', was '" + text + "'");
        }
        return port;
    }

    /** A DNS-style name or IPv4 address: ASCII letters, digits, '-', '_', '.', no empty label, one root dot allowed. */
    private static void checkName(String raw, String host) {
        if (host.isEmpty()) {
            throw bad(raw, "has no host");
        }
        for (int i = 0; i < host.length(); i++) {
            char c = host.charAt(i);
            if (c > 127) {
                throw bad(raw, "must have an ASCII host; write an internationalised name in its xn-- form");
            }
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_'
                    || c == '.')) {
                throw bad(raw, "has a host with '" + c + "'; a host may hold letters, digits, '-', '_' and '.'");
            }
        }
        String labels = host.endsWith(".") ? host.substring(0, host.length() - 1) : host;
        if (labels.isEmpty() || labels.startsWith(".") || labels.contains("..")) {
            throw bad(raw, "has a host with an empty label ('" + host + "')");
        }
    }

    /** RFC 4291 text forms: eight groups of 1–4 hex digits, one '::' standing for one or more, an IPv4 tail. */
    private static void checkIpv6(String raw, String addr) {
        if (addr.indexOf('%') >= 0) {
            throw bad(raw, "has an IPv6 zone id, which is not supported");
        }
        String body = addr;
        if (addr.indexOf('.') >= 0) {
            int lastColon = addr.lastIndexOf(':');
            checkIpv4Tail(raw, addr.substring(lastColon + 1));
            body = addr.substring(0, lastColon + 1) + "0:0"; // the IPv4 tail stands for two groups
        }
        int groups = 0;
        int gap = body.indexOf("::");
        if (gap >= 0 && body.indexOf("::", gap + 1) >= 0) {
            throw bad(raw, "has a malformed IPv6 address ('" + addr + "')");
        }
        String[] sides = gap >= 0 ? new String[] {body.substring(0, gap), body.substring(gap + 2)} : new String[] {body};
        for (String side : sides) {
            if (side.isEmpty()) {
                continue;
            }
            for (String g : side.split(":", -1)) {
                if (g.isEmpty() || g.length() > 4 || !g.chars().allMatch(WorkerUrl::isHexDigit)) {
                    throw bad(raw, "has a malformed IPv6 address ('" + addr + "')");
                }
                groups++;
            }
        }
        if (gap < 0 ? groups != 8 : groups > 7) {
            throw bad(raw, "has a malformed IPv6 address ('" + addr + "')");
        }
    }

    private static void checkIpv4Tail(String raw, String v4) {
        String[] parts = v4.split("\\.", -1);
        if (parts.length != 4) {
            throw bad(raw, "has a malformed IPv4 part in its IPv6 address ('" + v4 + "')");
        }
        for (String p : parts) {
            if (p.isEmpty() || p.length() > 3 || !p.chars().allMatch(c -> c >= '0' && c <= '9')
                    || Integer.parseInt(p) > 255) {
                throw bad(raw, "has a malformed IPv4 part in its IPv6 address ('" + v4 + "')");
            }
        }
    }

    private static boolean isHexDigit(int c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }

    private static IllegalArgumentException bad(String raw, String rule) {
        return new IllegalArgumentException("worker url '" + raw + "' " + rule);
    }
}
