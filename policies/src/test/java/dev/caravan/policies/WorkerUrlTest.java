package dev.caravan.policies;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class WorkerUrlTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
        // url                              | host                  | port  | path    | normalised
        "http://worker_a:8000               | worker_a              | 8000  | \"\"      | http://worker_a:8000",
        "http://sglang_router_worker_1:30001/ | sglang_router_worker_1 | 30001 | \"\"   | http://sglang_router_worker_1:30001",
        "HTTPS://W1.Example.COM.            | W1.Example.COM.       | 443   | \"\"      | https://W1.Example.COM.",
        "http://w1.example.com.:8000/v1//   | w1.example.com.       | 8000  | /v1     | http://w1.example.com.:8000/v1",
        "http://[::1]:8000                  | [::1]                 | 8000  | \"\"      | http://[::1]:8000",
        "http://[2001:db8::8a2e:370:7334]   | [2001:db8::8a2e:370:7334] | 80 | \"\"     | http://[2001:db8::8a2e:370:7334]",
        "http://[::ffff:10.0.0.1]:9        | [::ffff:10.0.0.1]     | 9     | \"\"      | http://[::ffff:10.0.0.1]:9",
        "http://[1:2:3:4:5:6:7:8]:1         | [1:2:3:4:5:6:7:8]     | 1     | \"\"      | http://[1:2:3:4:5:6:7:8]:1",
        "http://10.0.0.5:65535/prefix       | 10.0.0.5              | 65535 | /prefix | http://10.0.0.5:65535/prefix",
    })
    void acceptsEveryHostHttpClientsAccept(String url, String host, Integer port, String path, String normalised) {
        WorkerUrl u = WorkerUrl.parse(url);
        assertThat(u.host()).isEqualTo(host);
        assertThat(u.port()).isEqualTo(port);
        assertThat(u.path()).isEqualTo(path);
        assertThat(u.url()).isEqualTo(normalised);
        assertThat(u.ssl()).isEqualTo(normalised.startsWith("https"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
        "ftp://x:1                 | must start with http:// or https://",
        "w0:8000                   | must start with http:// or https://",
        "http://                   | has no host",
        "http://:8000              | has no host",
        "http://user:pw@w0:8000    | must not carry credentials before the host; set the worker's API key instead",
        "http://w0:8000?x=1        | must not have a query or fragment",
        "http://w0:8000/#frag      | must not have a query or fragment",
        "http://w0:0               | must have a port of 1 to 65535 after ':', was '0'",
        "http://w0:65536           | must have a port of 1 to 65535 after ':', was '65536'",
        "http://w0:               | must have a port of 1 to 65535 after ':', was ''",
        "http://w0:80a             | must have a port of 1 to 65535 after ':', was '80a'",
        "http://a..b:1             | has a host with an empty label ('a..b')",
        "http://.a:1               | has a host with an empty label ('.a')",
        "http://.:1                | has a host with an empty label ('.')",
        "http://w*1:1              | has a host with '*'; a host may hold letters, digits, '-', '_' and '.'",
        "http://wörker:1           | must have an ASCII host; write an internationalised name in its xn-- form",
        "http://::1:8000           | must put an IPv6 address in brackets, e.g. http://[::1]:8000",
        "http://[::1:8000          | has an IPv6 address without its closing ']'",
        "http://[::1]x             | must have only ':port' after the IPv6 address",
        "http://[fe80::1%25eth0]:1 | has an IPv6 zone id, which is not supported",
        "http://[1::2::3]:1        | has a malformed IPv6 address ('1::2::3')",
        "http://[12345::1]:1       | has a malformed IPv6 address ('12345::1')",
        "http://[1:2:3:4:5:6:7]:1  | has a malformed IPv6 address ('1:2:3:4:5:6:7')",
        "http://[::1.2.3.256]:1    | has a malformed IPv4 part in its IPv6 address ('1.2.3.256')",
        "http://[]:1               | has a malformed IPv6 address ('')",
    })
    void rejectsWhatNoHttpClientCanReachNamingTheUrlAndTheRule(String url, String rule) {
        assertThatThrownBy(() -> WorkerUrl.parse(url)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("worker url '" + url + "' " + rule);
    }

    @Test
    void trimsSurroundingBlanksAndTrailingSlashes() {
        assertThat(WorkerUrl.parse("  http://w0:8000//  ").url()).isEqualTo("http://w0:8000");
    }

    @Test
    void rejectsEmptyAndWhitespace() {
        assertThatThrownBy(() -> WorkerUrl.parse(" ")).hasMessage("worker url must not be empty");
        assertThatThrownBy(() -> WorkerUrl.parse(null)).hasMessage("worker url must not be empty");
        assertThatThrownBy(() -> WorkerUrl.parse("http://w 0:1"))
                .hasMessage("worker url 'http://w 0:1' must not contain whitespace or control characters");
    }

    @Test
    void anEndpointKeepsItsPathAndQuery() {
        WorkerUrl e = WorkerUrl.parseEndpoint("http://worker_a:8000/health?deep=1#x");
        assertThat(e.host()).isEqualTo("worker_a");
        assertThat(e.path()).isEqualTo("/health?deep=1");
        assertThat(WorkerUrl.parseEndpoint("http://[::1]:8000?q").path()).isEqualTo("/?q");
        assertThat(WorkerUrl.parseEndpoint("https://w0/").path()).isEqualTo("/");
    }
}
