package dev.caravan.routes;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import org.junit.jupiter.api.Test;

/**
 * Every route file of this module follows the Camel YAML DSL's JSON schema, the one camel-yaml-dsl ships
 * ({@code schema/camelYamlDsl.json}) and camel-yaml-dsl-validator-maven-plugin checks against: an unknown key, a key
 * in the wrong place or a value of the wrong shape fails the build here, before any Camel context loads the file.
 * What the schema cannot see (a bean a {@code ref:} names, an endpoint option) the processors module's tests check.
 */
class RouteFilesSchemaTest {

    private static final Path ROUTES = Path.of(".");
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final JsonSchema SCHEMA = schema();

    private static JsonSchema schema() {
        ClassLoader loader = RouteFilesSchemaTest.class.getClassLoader();
        try (InputStream in = loader.getResourceAsStream("schema/camelYamlDsl.json")) {
            return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V4).getSchema(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * What the schema finds wrong with route text, less a property placeholder where the schema wants a boolean or a
     * number ({@code autoStartup: "{{caravan.derived....}}"}): Camel resolves it when it loads the route.
     */
    private static List<String> problems(String yaml) throws IOException {
        return SCHEMA.validate(YAML.readTree(yaml)).stream().filter(m -> !placeholder(m))
                .map(ValidationMessage::getMessage).sorted().toList();
    }

    private static boolean placeholder(ValidationMessage message) {
        JsonNode value = message.getInstanceNode();
        return "type".equals(message.getType()) && value != null && value.isTextual()
                && value.asText().startsWith("{{") && value.asText().endsWith("}}");
    }

    @Test
    void everyRouteFileFollowsTheYamlDslSchema() throws IOException {
        List<Path> files;
        try (Stream<Path> list = Files.list(ROUTES)) {
            files = list.filter(f -> f.getFileName().toString().endsWith(".camel.yaml")).sorted().toList();
        }
        assertThat(files).extracting(f -> f.getFileName().toString())
                .contains("ingress.camel.yaml", "errors.camel.yaml", "admin.camel.yaml", "pd.camel.yaml");
        List<String> problems = new ArrayList<>();
        for (Path file : files) {
            problems(Files.readString(file)).forEach(p -> problems.add(file.getFileName() + ": " + p));
        }
        assertThat(problems).isEmpty();
    }

    @Test
    void aMisplacedKeyAndAnUnknownStepAreReportedAndAPlaceholderIsNot() throws IOException {
        String yaml = """
                - templatedRoute:
                    routeTemplateRef: inference-endpoint
                    routeId: chat
                    parameter: [{name: path, value: /v1/chat/completions}]
                - route:
                    id: x
                    autoStartup: "{{caravan.derived.x-enabled}}"
                    from:
                      uri: direct:x
                      steps:
                        - proces:
                            ref: parseRequest
                """;
        List<String> problems = problems(yaml);

        assertThat(problems).anyMatch(p -> p.contains("parameter") && p.contains("not defined in the schema"))
                .anyMatch(p -> p.contains("proces") && p.contains("not defined in the schema"))
                .noneMatch(p -> p.contains("autoStartup"));
    }
}
