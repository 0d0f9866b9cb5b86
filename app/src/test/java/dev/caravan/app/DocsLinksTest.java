package dev.caravan.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every relative link in README.md and docs/ points at a file that exists and, for a Markdown file, at a heading it has
 * (GitHub's anchors). Docs move between user guides and design notes; a link left behind fails here instead of in a
 * reader's browser. Links inside fenced code blocks and links with a scheme (https:, mailto:) are not checked.
 */
class DocsLinksTest {

    private static final Path ROOT = Path.of("..");
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*)$");
    private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z+.-]*:");

    private final Map<Path, Set<String>> anchors = new HashMap<>();

    @Test
    void everyRelativeLinkInTheReadmeAndDocsResolves() throws IOException {
        List<Path> files = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        }

        List<String> broken = new ArrayList<>();
        for (Path file : files) {
            broken.addAll(brokenLinks(file));
        }

        assertThat(files).hasSizeGreaterThan(10);
        assertThat(broken).as("broken relative links").isEmpty();
    }

    @Test
    void aMissingFileAndAMissingHeadingAreBothReported(@TempDir Path dir) throws IOException {
        Path doc = dir.resolve("guide.md");
        Files.writeString(doc, String.join("\n", "# The `zeromq:` component (ours)", "",
                "[ok](guide.md#the-zeromq-component-ours) [gone](other.md) [nope](guide.md#missing)",
                "```", "[in code](ignored.md)", "```", "[web](https://example.com/x.md)"), StandardCharsets.UTF_8);

        assertThat(brokenLinks(doc)).containsExactly("guide.md:3: no file other.md",
                "guide.md:3: no heading guide.md#missing");
    }

    private List<String> brokenLinks(Path file) throws IOException {
        List<String> broken = new ArrayList<>();
        boolean inCode = false;
        int lineNo = 0;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            lineNo++;
            if (line.startsWith("```")) {
                inCode = !inCode;
                continue;
            }
            if (inCode) {
                continue;
            }
            Matcher m = LINK.matcher(line);
            while (m.find()) {
                String target = m.group(1);
                if (SCHEME.matcher(target).find()) {
                    continue;
                }
                int hash = target.indexOf('#');
                String pathPart = hash < 0 ? target : target.substring(0, hash);
                String anchor = hash < 0 ? "" : target.substring(hash + 1);
                Path resolved = pathPart.isEmpty() ? file : file.getParent().resolve(pathPart).normalize();
                String where = file.getFileName() + ":" + lineNo + ": ";
                if (!Files.exists(resolved)) {
                    broken.add(where + "no file " + target);
                } else if (!anchor.isEmpty() && resolved.toString().endsWith(".md")
                        && !anchorsOf(resolved).contains(anchor)) {
                    broken.add(where + "no heading " + target);
                }
            }
        }
        return broken;
    }

    /** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
    private Set<String> anchorsOf(Path file) throws IOException {
        Set<String> cached = anchors.get(file);
        if (cached != null) {
            return cached;
        }
        Set<String> result = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean inCode = false;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (line.startsWith("```")) {
                inCode = !inCode;
            }
            Matcher m = HEADING.matcher(line);
            if (!inCode && m.matches()) {
                String slug = m.group(1).strip().toLowerCase(Locale.ROOT)
                        .replaceAll("[^\\p{L}\\p{N}_\\- ]", "").replace(' ', '-');
                int n = seen.merge(slug, 1, Integer::sum) - 1;
                result.add(n == 0 ? slug : slug + "-" + n);
            }
        }
        anchors.put(file, result);
        return result;
    }
}
