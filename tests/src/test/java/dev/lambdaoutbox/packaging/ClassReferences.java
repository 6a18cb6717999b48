package dev.lambdaoutbox.packaging;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The classes one class file names, read from its constant pool, in internal form ({@code
 * java/lang/String}): the classes its code uses, every class of a descriptor or generic signature
 * (fields, methods, annotations, their values), and every string constant spelled as a class name,
 * which is how code names a class it loads by reflection ({@code Class.forName}). Generous on
 * purpose: a library counts as used if anything could lead to it.
 */
final class ClassReferences {
  private static final Pattern DESCRIPTOR_CLASS = Pattern.compile("L([\\w/$]+)[;<]");
  private static final Pattern DOTTED_CLASS =
      Pattern.compile("[A-Za-z_$][\\w$]*(\\.[A-Za-z_$][\\w$]*)+");

  private ClassReferences() {}

  /** The classes {@code classFile} names, its own name left out. */
  static Set<String> of(byte[] classFile) throws IOException {
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(classFile));
    if (in.readInt() != 0xCAFEBABE) {
      throw new IOException("not a class file");
    }
    in.readUnsignedShort(); // minor version
    in.readUnsignedShort(); // major version
    int count = in.readUnsignedShort();
    String[] utf8 = new String[count];
    int[] classNames = new int[count];
    int[] strings = new int[count];
    for (int i = 1; i < count; i++) {
      int tag = in.readUnsignedByte();
      switch (tag) {
        case 1 -> utf8[i] = in.readUTF();
        case 7 -> classNames[i] = in.readUnsignedShort();
        case 8 -> strings[i] = in.readUnsignedShort();
        case 3, 4 -> in.skipNBytes(4); // int, float
        case 5, 6 -> { // long, double: two entries
          in.skipNBytes(8);
          i++;
        }
        case 9, 10, 11, 12, 17, 18 -> in.skipNBytes(4); // member refs, name and type, dynamic
        case 15 -> in.skipNBytes(3); // method handle
        case 16, 19, 20 -> in.skipNBytes(2); // method type, module, package
        default -> throw new IOException("unknown constant pool tag " + tag + " at " + i);
      }
    }
    in.readUnsignedShort(); // access flags
    String self = utf8[classNames[in.readUnsignedShort()]];

    Set<String> names = new HashSet<>();
    for (int i = 1; i < count; i++) {
      if (classNames[i] != 0) {
        String name = utf8[classNames[i]];
        if (name.startsWith("[")) {
          descriptorClasses(name, names);
        } else {
          names.add(name);
        }
      } else if (strings[i] != 0) {
        String text = utf8[strings[i]];
        if (DOTTED_CLASS.matcher(text).matches()) {
          names.add(text.replace('.', '/'));
        }
      } else if (utf8[i] != null && utf8[i].indexOf('L') >= 0) {
        descriptorClasses(utf8[i], names);
      }
    }
    names.remove(self);
    return names;
  }

  private static void descriptorClasses(String text, Set<String> into) {
    Matcher m = DESCRIPTOR_CLASS.matcher(text);
    while (m.find()) {
      into.add(m.group(1));
    }
  }
}
