package org.roce4j.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * Issue 21: roce4j-bom names every published roce4j artifact, at roce4j's version. The BOM has no
 * parent (an imported BOM brings its whole dependencyManagement, and roce4j-parent's would pin the
 * user's JUnit, Netty, ...), so what it would inherit is checked here instead.
 */
class BomMatchesTheBuildTest {
    private static final Path ROOT = Path.of(System.getProperty("roce4j.repo.root", "..")).toAbsolutePath();

    private static Element pom(String path) throws Exception {
        Document document = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(ROOT.resolve(path).toFile());
        return document.getDocumentElement();
    }

    private static Element child(Element parent, String name) {
        List<Element> children = children(parent, name);
        return children.isEmpty() ? null : children.getFirst();
    }

    private static String text(Element parent, String name) {
        Element element = child(parent, name);
        return element == null ? null : element.getTextContent().trim();
    }

    /** A module is published unless its pom sets maven.deploy.skip (bench, examples). */
    private static List<String> publishedArtifacts() throws Exception {
        List<String> published = new ArrayList<>();
        for (Element module : children(child(pom("pom.xml"), "modules"), "module")) {
            String dir = module.getTextContent().trim();
            if (dir.equals("bom")) {
                continue;
            }
            Element pom = pom(dir + "/pom.xml");
            Element properties = child(pom, "properties");
            if (properties == null || !"true".equals(text(properties, "maven.deploy.skip"))) {
                published.add(text(pom, "artifactId"));
            }
        }
        return published;
    }

    private static List<Element> children(Element parent, String name) {
        List<Element> children = new ArrayList<>();
        for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element element && element.getTagName().equals(name)) {
                children.add(element);
            }
        }
        return children;
    }

    @Test
    void theBomManagesEveryPublishedModuleAtTheProjectVersion() throws Exception {
        Element bom = pom("bom/pom.xml");
        List<String> managed = new ArrayList<>();
        for (Element dependency : children(child(child(bom, "dependencyManagement"), "dependencies"), "dependency")) {
            assertThat(text(dependency, "groupId")).isEqualTo("org.roce4j");
            assertThat(text(dependency, "version")).isEqualTo("${project.version}");
            managed.add(text(dependency, "artifactId"));
        }
        assertThat(managed).containsExactlyInAnyOrderElementsOf(publishedArtifacts());
    }

    @Test
    void theBomHasTheParentsVersionAndCentralMetadata() throws Exception {
        Element bom = pom("bom/pom.xml");
        Element parent = pom("pom.xml");
        assertThat(text(bom, "groupId")).isEqualTo(text(parent, "groupId"));
        assertThat(text(bom, "version")).isEqualTo(text(parent, "version"));
        for (String metadata : List.of("url", "licenses", "developers", "scm")) {
            assertThat(text(bom, metadata)).as(metadata).isNotBlank().isEqualTo(text(parent, metadata));
        }
        assertThat(text(child(bom, "properties"), "project.build.outputTimestamp"))
                .isEqualTo(text(child(parent, "properties"), "project.build.outputTimestamp"));
    }
}
