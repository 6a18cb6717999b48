package dev.lambdaoutbox.release;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.SAXException;

/**
 * What the release checks read from a POM: coordinates, the parent, the elements Maven Central
 * requires, the modules, a property, and the managed dependencies. Values are as written; nothing
 * is inherited here (see {@link CentralRules} for inheritance within a bundle).
 */
record Pom(
    String groupId,
    String artifactId,
    String version,
    String packaging,
    Optional<String> parentArtifactId,
    String name,
    String description,
    String url,
    List<String> licenses,
    List<String> developers,
    String scmUrl,
    String scmConnection,
    List<String> modules,
    List<String> managedArtifactIds,
    Element root) {

  static Pom parse(byte[] xml, String what) {
    Document doc;
    try {
      DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
      factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
      factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      doc = factory.newDocumentBuilder().parse(new ByteArrayInputStream(xml));
    } catch (ParserConfigurationException | SAXException | IOException e) {
      throw new IllegalArgumentException(what + " is not a readable POM: " + e.getMessage(), e);
    }
    Element root = doc.getDocumentElement();
    Element parent = child(root, "parent");
    String groupId = text(root, "groupId");
    String version = text(root, "version");
    if (parent != null) {
      groupId = groupId.isEmpty() ? text(parent, "groupId") : groupId;
      version = version.isEmpty() ? text(parent, "version") : version;
    }
    String packaging = text(root, "packaging");
    List<String> licenses = new ArrayList<>();
    for (Element license : children(child(root, "licenses"), "license")) {
      if (!text(license, "name").isEmpty() && !text(license, "url").isEmpty()) {
        licenses.add(text(license, "name") + " " + text(license, "url"));
      }
    }
    List<String> developers = new ArrayList<>();
    for (Element developer : children(child(root, "developers"), "developer")) {
      String who =
          text(developer, "name").isEmpty() ? text(developer, "id") : text(developer, "name");
      if (!who.isEmpty()) {
        developers.add(who);
      }
    }
    Element scm = child(root, "scm");
    List<String> modules = new ArrayList<>();
    for (Element module : children(child(root, "modules"), "module")) {
      modules.add(module.getTextContent().trim());
    }
    List<String> managed = new ArrayList<>();
    Element management = child(root, "dependencyManagement");
    for (Element dependency : children(child(management, "dependencies"), "dependency")) {
      if (!"import".equals(text(dependency, "scope"))) {
        managed.add(text(dependency, "groupId") + ":" + text(dependency, "artifactId"));
      }
    }
    return new Pom(
        groupId,
        text(root, "artifactId"),
        version,
        packaging.isEmpty() ? "jar" : packaging,
        parent == null ? Optional.empty() : Optional.of(text(parent, "artifactId")),
        text(root, "name"),
        text(root, "description"),
        text(root, "url"),
        List.copyOf(licenses),
        List.copyOf(developers),
        scm == null ? "" : text(scm, "url"),
        scm == null ? "" : text(scm, "connection"),
        List.copyOf(modules),
        List.copyOf(managed),
        root);
  }

  /** The value of a property this POM sets itself, or empty. */
  String property(String name) {
    Element properties = child(root, "properties");
    return properties == null ? "" : text(properties, name);
  }

  private static Element child(Element parent, String name) {
    if (parent == null) {
      return null;
    }
    for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
      if (node instanceof Element element && name.equals(element.getTagName())) {
        return element;
      }
    }
    return null;
  }

  private static List<Element> children(Element parent, String name) {
    List<Element> found = new ArrayList<>();
    if (parent != null) {
      for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
        if (node instanceof Element element && name.equals(element.getTagName())) {
          found.add(element);
        }
      }
    }
    return found;
  }

  private static String text(Element parent, String name) {
    Element element = child(parent, name);
    return element == null ? "" : element.getTextContent().trim();
  }
}
