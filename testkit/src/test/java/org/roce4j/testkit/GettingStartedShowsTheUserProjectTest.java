package org.roce4j.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Issue 21: docs/getting-started.md shows a complete project, and that project is
 * testkit/src/it/user-project, which every verify builds and tests (maven-invoker-plugin) — so the
 * page cannot drift from what works.
 */
class GettingStartedShowsTheUserProjectTest {
    private static final Path ROOT = Path.of(System.getProperty("roce4j.repo.root", "..")).toAbsolutePath();
    private static final Path PROJECT = ROOT.resolve("testkit/src/it/user-project");
    /** In the repository but not on the page: what the invoker needs, and the wrapper's command writes. */
    private static final Set<String> NOT_ON_THE_PAGE = Set.of("README.md", "invoker.properties", "mvnw", "mvnw.cmd",
            ".mvn/wrapper/maven-wrapper.properties");

    private static GettingStartedPage page() throws IOException {
        return GettingStartedPage.read(ROOT.resolve("docs/getting-started.md"));
    }

    @Test
    void everyFileThePageGivesIsTheUserProjectsFileByteForByte() throws IOException {
        var files = page().files();
        assertThat(files).containsKeys("pom.xml", "src/main/java/module-info.java");
        for (var file : files.entrySet()) {
            Path path = PROJECT.resolve(file.getKey());
            assertThat(path).as("the page gives %s; the user project has it", file.getKey()).isRegularFile();
            assertThat(Files.readString(path)).as("%s on the page and in %s", file.getKey(), PROJECT)
                    .isEqualTo(file.getValue());
        }
    }

    @Test
    void everyFileOfTheUserProjectIsOnThePage() throws IOException {
        Set<String> inTheProject = new TreeSet<>();
        try (Stream<Path> paths = Files.walk(PROJECT)) {
            paths.filter(Files::isRegularFile).map(p -> PROJECT.relativize(p).toString())
                    .filter(p -> !p.startsWith("target/") && !NOT_ON_THE_PAGE.contains(p)).forEach(inTheProject::add);
        }
        assertThat(page().files().keySet()).as("files of %s the page gives", PROJECT)
                .containsExactlyInAnyOrderElementsOf(inTheProject);
    }

    @Test
    void theUserProjectsWrapperIsTheOneThePagesCommandWrites() throws IOException {
        GettingStartedPage page = page();
        String wrapperPlugin = page.wrapperCommand().replaceAll(".*maven-wrapper-plugin:([^:\\s]+):wrapper.*", "$1");
        assertThat(Files.readAllLines(PROJECT.resolve(".mvn/wrapper/maven-wrapper.properties"))).containsExactly(
                "wrapperVersion=" + wrapperPlugin,
                "distributionType=only-script",
                "distributionUrl=https://repo.maven.apache.org/maven2/org/apache/maven/apache-maven/"
                        + page.wrapperOption("maven") + "/apache-maven-" + page.wrapperOption("maven") + "-bin.zip");
        assertThat(Files.readString(PROJECT.resolve("mvnw"))).contains("Apache Maven Wrapper startup batch script, version "
                + wrapperPlugin);
        assertThat(PROJECT.resolve("mvnw")).isExecutable();
    }
}
