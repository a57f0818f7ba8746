package dev.medallion.users;

import dev.medallion.core.OwnFormatSchemaCoder;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import org.apache.beam.sdk.schemas.SchemaCoder;
import org.apache.beam.sdk.util.VarInt;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * Coders of Bronze's and Silver's user events that write each field straight from its getter and
 * build the event with its constructor: Beam's schema coder goes through a {@code Row} both ways
 * (each field fetched by a generated getter, the event made by a generated creator), which was 8 %
 * of the Spark users job's CPU samples at 2M events, where each Bronze row is encoded once and
 * decoded three times (the runner keeps the parse's outputs on disk) and each Silver event once and
 * twice.
 *
 * <p>They are schema coders all the same ({@link OwnFormatSchemaCoder}), so every schema-aware
 * step, such as the table writers, sees the same PCollections. The encoding: a bit per nullable
 * field that is null, then the other fields in schema order (strings as a varint length and UTF-8,
 * instants and longs as varints, a double as its 8 bytes).
 */
final class UserEventCoders {
  private UserEventCoders() {}

  /** {@link UserEventBronze}'s coder. */
  static SchemaCoder<UserEventBronze> bronze() {
    return BronzeCoder.INSTANCE;
  }

  /** {@link UserEvent}'s coder. */
  static SchemaCoder<UserEvent> silver() {
    return SilverCoder.INSTANCE;
  }

  static final class BronzeCoder extends OwnFormatSchemaCoder<UserEventBronze> {
    private static final long serialVersionUID = 1L;
    private static final BronzeCoder INSTANCE = new BronzeCoder();

    private BronzeCoder() {
      super(UserEventBronze.class);
    }

    @Override
    public void encode(UserEventBronze e, OutputStream out) throws IOException {
      Nulls nulls = new Nulls();
      nulls.note(e.getUserId());
      nulls.note(e.getEventType());
      nulls.note(e.getEventTimestamp());
      nulls.note(e.getEventDate());
      nulls.note(e.getEventId());
      nulls.note(e.getSessionId());
      nulls.note(e.getProductId());
      nulls.note(e.getPrice());
      nulls.note(e.getDevice());
      nulls.note(e.getCountry());
      nulls.note(e.getTypeErrors());
      nulls.note(e.getExtra());
      VarInt.encode(nulls.bits, out);
      writeString(e.getUserId(), out);
      writeString(e.getEventType(), out);
      writeInstant(e.getEventTimestamp(), out);
      writeString(e.getEventDate(), out);
      writeString(e.getRawLine(), out);
      writeString(e.getSource(), out);
      writeString(e.getSourceFile(), out);
      VarInt.encode(e.getLineNumber(), out);
      writeInstant(e.getIngestTs(), out);
      writeString(e.getIngestDate(), out);
      VarInt.encode(e.getSchemaVersion(), out);
      writeString(e.getEventId(), out);
      writeString(e.getSessionId(), out);
      writeString(e.getProductId(), out);
      writeDouble(e.getPrice(), out);
      writeString(e.getDevice(), out);
      writeString(e.getCountry(), out);
      writeString(e.getTypeErrors(), out);
      writeString(e.getExtra(), out);
    }

    @Override
    public UserEventBronze decode(InputStream in) throws IOException {
      Nulls nulls = new Nulls(VarInt.decodeInt(in));
      return new AutoValue_UserEventBronze(
          nulls.next() ? null : readString(in),
          nulls.next() ? null : readString(in),
          nulls.next() ? null : readInstant(in),
          nulls.next() ? null : readString(in),
          readString(in),
          readString(in),
          readString(in),
          VarInt.decodeLong(in),
          readInstant(in),
          readString(in),
          VarInt.decodeInt(in),
          nulls.next() ? null : readString(in),
          nulls.next() ? null : readString(in),
          nulls.next() ? null : readString(in),
          nulls.next() ? null : readDouble(in),
          nulls.next() ? null : readString(in),
          nulls.next() ? null : readString(in),
          nulls.next() ? null : readString(in),
          nulls.next() ? null : readString(in));
    }
  }

  static final class SilverCoder extends OwnFormatSchemaCoder<UserEvent> {
    private static final long serialVersionUID = 1L;
    private static final SilverCoder INSTANCE = new SilverCoder();

    private SilverCoder() {
      super(UserEvent.class);
    }

    @Override
    public void encode(UserEvent e, OutputStream out) throws IOException {
      Nulls nulls = new Nulls();
      nulls.note(e.getEventId());
      nulls.note(e.getSessionId());
      nulls.note(e.getProductId());
      nulls.note(e.getPrice());
      nulls.note(e.getDevice());
      nulls.note(e.getCountry());
      nulls.note(e.getInvalidFields());
      nulls.note(e.getExtra());
      VarInt.encode(nulls.bits, out);
      writeString(e.getEventId(), out);
      writeString(e.getUserId(), out);
      writeString(e.getEventType(), out);
      writeInstant(e.getEventTimestamp(), out);
      writeString(e.getEventDate(), out);
      writeString(e.getSessionId(), out);
      writeString(e.getProductId(), out);
      writeDouble(e.getPrice(), out);
      writeString(e.getDevice(), out);
      writeString(e.getCountry(), out);
      writeString(e.getInvalidFields(), out);
      writeString(e.getRawLine(), out);
      writeString(e.getSource(), out);
      writeString(e.getSourceFile(), out);
      VarInt.encode(e.getLineNumber(), out);
      writeInstant(e.getIngestTs(), out);
      writeString(e.getExtra(), out);
    }

    @Override
    public UserEvent decode(InputStream in) throws IOException {
      Nulls nulls = new Nulls(VarInt.decodeInt(in));
      UserEvent.Builder b = UserEvent.builder();
      b.setEventId(nulls.next() ? null : readString(in));
      b.setUserId(readString(in));
      b.setEventType(readString(in));
      b.setEventTimestamp(readInstant(in));
      b.setEventDate(readString(in));
      b.setSessionId(nulls.next() ? null : readString(in));
      b.setProductId(nulls.next() ? null : readString(in));
      b.setPrice(nulls.next() ? null : readDouble(in));
      b.setDevice(nulls.next() ? null : readString(in));
      b.setCountry(nulls.next() ? null : readString(in));
      b.setInvalidFields(nulls.next() ? null : readString(in));
      b.setRawLine(readString(in));
      b.setSource(readString(in));
      b.setSourceFile(readString(in));
      b.setLineNumber(VarInt.decodeLong(in));
      b.setIngestTs(readInstant(in));
      b.setExtra(nulls.next() ? null : readString(in));
      return b.build();
    }
  }

  /** One bit per nullable field, in order: set when the field is null. */
  private static final class Nulls {
    private int bits;
    private int count;

    Nulls() {}

    Nulls(int bits) {
      this.bits = bits;
    }

    void note(@Nullable Object value) {
      if (value == null) {
        bits |= 1 << count;
      }
      count++;
    }

    boolean next() {
      return (bits & (1 << count++)) != 0;
    }
  }

  /** Writes nothing for null (the null bits say so). */
  private static void writeString(@Nullable String s, OutputStream out) throws IOException {
    if (s != null) {
      byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
      VarInt.encode(bytes.length, out);
      out.write(bytes);
    }
  }

  private static String readString(InputStream in) throws IOException {
    int length = VarInt.decodeInt(in);
    byte[] bytes = new byte[length];
    if (in.readNBytes(bytes, 0, length) != length) {
      throw new EOFException("a string of " + length + " bytes ended early");
    }
    return new String(bytes, StandardCharsets.UTF_8);
  }

  private static void writeInstant(@Nullable Instant t, OutputStream out) throws IOException {
    if (t != null) {
      VarInt.encode(t.getMillis(), out);
    }
  }

  private static Instant readInstant(InputStream in) throws IOException {
    return new Instant(VarInt.decodeLong(in));
  }

  private static void writeDouble(@Nullable Double d, OutputStream out) throws IOException {
    if (d != null) {
      long bits = Double.doubleToRawLongBits(d);
      byte[] b = new byte[8];
      for (int i = 0; i < 8; i++) {
        b[i] = (byte) (bits >>> (56 - 8 * i));
      }
      out.write(b);
    }
  }

  private static double readDouble(InputStream in) throws IOException {
    byte[] b = new byte[8];
    if (in.readNBytes(b, 0, 8) != 8) {
      throw new EOFException("a double ended early");
    }
    long bits = 0;
    for (int i = 0; i < 8; i++) {
      bits = (bits << 8) | (b[i] & 0xff);
    }
    return Double.longBitsToDouble(bits);
  }
}
