package dev.medallion.core;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.IOException;
import java.util.List;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * A record's known fields read in one pass of Jackson's streaming parser, for a Bronze rule's plain
 * lines, instead of through a tree ({@link Json#parseObject}) and {@link JsonFields}. A plain line
 * is one flat JSON object, each field once, each known field of its JSON type ({@link Kind}; a
 * number within a double's range, an integer within a long's) or null, and any other field a
 * string, number, boolean or null. For such a line {@link #read} gives what the tree and {@link
 * JsonFields} give for it: the same values, no type error, the same {@code extra} text.
 *
 * <p>For any other line it gives null, and the caller applies its rule through the tree, which
 * stays the one place that names a rejection's reason and notes a type error: a record its reader
 * could not decode or shape, one beyond {@link RawEvent#MAX_PAYLOAD_CHARS}, a line that is not one
 * valid JSON object, has a field twice, a known field of the wrong type or out of range, or a
 * nested object or array. The caller's own checks on the values (a required field, a timestamp that
 * parses) come after, and a line that fails them goes to the tree too.
 */
public final class PlainObjects {
  /** The JSON type a known field must have (or be null). */
  public enum Kind {
    /** A string: a {@link String}. */
    TEXT,
    /** A number: a finite {@link Double}, as {@link JsonFields#number} reads it. */
    NUMBER,
    /** An integer within a long: a {@link Long}, as {@link JsonFields#integer} reads it. */
    INTEGER,
    /**
     * A string or an integer within a long, as its node ({@link TextNode} or {@link LongNode}) for
     * {@link EventTimestamps#parse}.
     */
    TIMESTAMP
  }

  /** The known fields of a record, each with its kind. At most 31. */
  public static final class Fields {
    private final String[] names;
    private final Kind[] kinds;

    private Fields(List<String> names, List<Kind> kinds) {
      if (names.size() != kinds.size() || names.size() > 31) {
        throw new IllegalArgumentException("at most 31 fields, each with its kind");
      }
      this.names = names.toArray(new String[0]);
      this.kinds = kinds.toArray(new Kind[0]);
    }

    public static Fields of(List<String> names, List<Kind> kinds) {
      return new Fields(names, kinds);
    }

    int indexOf(String name) {
      for (int i = 0; i < names.length; i++) {
        if (names[i].equals(name)) {
          return i;
        }
      }
      return -1;
    }
  }

  /**
   * A plain line's known fields, in the order of its {@link Fields} (null when absent or null),
   * which of them it has (a bit per field), and the others as {@code extra}'s JSON text.
   */
  public record Plain(@Nullable Object[] values, int present, @Nullable String extra) {
    /** Whether the line has the field (even as null), as the tree's {@code has}. */
    public boolean has(int field) {
      return (present & (1 << field)) != 0;
    }
  }

  /**
   * The project's parser ({@link Json#mapper()}) without its duplicate check, which this read makes
   * itself: a bit per known field, the {@code extra} object's own map for the others.
   */
  private static final JsonFactory PARSERS =
      Json.mapper().getFactory().copy().disable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

  private PlainObjects() {}

  /** Why a line is not plain: thrown inside the read only, without a stack trace. */
  private static final class NotPlain extends Exception {
    private static final long serialVersionUID = 1L;
    static final NotPlain LINE = new NotPlain();

    private NotPlain() {
      super(null, null, false, false);
    }
  }

  /** The record's known fields, or null when it is not plain (see the class). */
  public static @Nullable Plain read(RawEvent raw, Fields fields) {
    String line = raw.getPayload();
    if (raw.getDecodeError() != null
        || raw.getReadError() != null
        || line.length() > RawEvent.MAX_PAYLOAD_CHARS) {
      return null;
    }
    try (JsonParser p = PARSERS.createParser(line)) {
      return read(p, fields);
    } catch (NotPlain | IOException | RuntimeException notPlain) {
      return null;
    }
  }

  private static Plain read(JsonParser p, Fields fields) throws IOException, NotPlain {
    require(p.nextToken() == JsonToken.START_OBJECT);
    Object[] values = new Object[fields.names.length];
    int present = 0;
    ObjectNode extra = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken v = p.nextToken();
      int known = fields.indexOf(name);
      if (known < 0) {
        require(v.isScalarValue() && (extra == null || !extra.has(name)));
        extra = extra == null ? Json.mapper().getNodeFactory().objectNode() : extra;
        extra.set(name, Json.mapper().readTree(p));
        continue;
      }
      require((present & (1 << known)) == 0);
      present |= 1 << known;
      values[known] = v == JsonToken.VALUE_NULL ? null : value(p, v, fields.kinds[known]);
    }
    require(p.currentToken() == JsonToken.END_OBJECT && p.nextToken() == null);
    return new Plain(values, present, extra == null ? null : extra.toString());
  }

  private static Object value(JsonParser p, JsonToken v, Kind kind) throws IOException, NotPlain {
    switch (kind) {
      case TEXT:
        require(v == JsonToken.VALUE_STRING);
        return p.getText();
      case NUMBER:
        if (v == JsonToken.VALUE_NUMBER_INT) {
          return (double) p.getLongValue(); // as the tree's asDouble of an int or a long
        }
        require(v == JsonToken.VALUE_NUMBER_FLOAT);
        double d = p.getDoubleValue();
        require(Double.isFinite(d));
        return d;
      case INTEGER:
        require(v == JsonToken.VALUE_NUMBER_INT);
        return p.getLongValue(); // a number beyond a long throws: not plain
      default: // TIMESTAMP
        if (v == JsonToken.VALUE_STRING) {
          return TextNode.valueOf(p.getText());
        }
        require(v == JsonToken.VALUE_NUMBER_INT);
        return LongNode.valueOf(p.getLongValue());
    }
  }

  private static void require(boolean plain) throws NotPlain {
    if (!plain) {
      throw NotPlain.LINE;
    }
  }
}
