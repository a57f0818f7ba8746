package dev.medallion.iot;

import dev.medallion.core.CoderInRuns;
import dev.medallion.core.OwnFormatSchemaCoder;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.CustomCoder;
import org.apache.beam.sdk.schemas.SchemaCoder;
import org.apache.beam.sdk.util.VarInt;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * Coders of Bronze's and Silver's records written field by field: every field, a flag before each
 * nullable one, the record's length first. They are schema coders of the records' own schemas
 * ({@link OwnFormatSchemaCoder}), set on the PCollections of Bronze's events ({@link
 * IngestToBronze}) and Silver's readings and heartbeats ({@link ValidateAndEnrich}).
 *
 * <p>Gold's batches ({@link WindowedDeviceStats#withExpectedDevices}) carry only the fields Gold
 * reads, a batch's repeated text once ({@link #READING_BATCH}, {@link #HEARTBEAT_BATCH}): a group's
 * minute of readings repeats its devices' ids, sites and zones, the sensor types, units and source
 * in every record. On Spark the repeated text written once halved what Gold's batches shuffle, and
 * the 1M-event replay took 16.55 to 16.79 s against 17.35 to 17.60 s (three runs each, alternating;
 * 1.5 against 1.7 GB of peak RSS; Gold equal to the loop's, 2026-12-05). Leaving out what Gold does
 * not read (the raw payload, two thirds of a record's bytes, the registry's coordinates and model,
 * the original value and unit, the date, the arrival and ingest instants) took it from 12.43 to
 * 11.72 s (medians of four alternating pairs, 2026-12-07), and the DirectRunner, which holds a
 * replay's batches until the input ends, through a replay of 15.9M events with {@code -Xmx2g} (it
 * ran out of memory at 116 s before; 150.6 s now).
 *
 * <p>The records' schema coders go through a Beam {@code Row} for each record (getters, a null
 * bitmap, a coder per field, and a builder to decode): encoding and decoding Gold's batches with
 * them was a tenth of the IoT replay's CPU samples on the DirectRunner, and on Spark, where the
 * outputs of Bronze's parse, Silver's checks and Gold's lateness split are kept encoded and decoded
 * by each reader, a quarter (JFR, 2026-12-04).
 */
final class IotRecordCoders {
  private IotRecordCoders() {}

  static final SchemaCoder<BronzeEvent> BRONZE =
      new FormatCoder<>(BronzeEvent.class, BronzeFormat.INSTANCE);
  static final SchemaCoder<SensorReading> READING =
      new FormatCoder<>(SensorReading.class, ReadingFormat.INSTANCE);
  static final SchemaCoder<Heartbeat> HEARTBEAT =
      new FormatCoder<>(Heartbeat.class, HeartbeatFormat.INSTANCE);

  /**
   * Gold's batches of readings ({@link BatchCoder}), each reading's fields that Gold reads: its
   * device, site and zone, sensor type, value, unit, {@code seq}, instant and source. Decoded, the
   * others are left empty: no raw payload, date or coordinates, the value and unit as the original
   * ones, the instant as the ingest instant.
   */
  static final Coder<List<SensorReading>> READING_BATCH = new BatchCoder<>(ReadingFormat.GOLD);

  /**
   * Gold's batches of heartbeats ({@link BatchCoder}), each heartbeat's fields that Gold reads: its
   * device, site and zone, battery, RSSI, status, instant and source; the others as in {@link
   * #READING_BATCH}.
   */
  static final Coder<List<Heartbeat>> HEARTBEAT_BATCH = new BatchCoder<>(HeartbeatFormat.GOLD);

  /**
   * A Bronze event's fields; its kind's, device's, source's and sensor's text through {@code
   * strings}.
   */
  private enum BronzeFormat implements Format<BronzeEvent> {
    INSTANCE;

    @Override
    public void write(BronzeEvent e, Out out, Strings strings) {
      strings.write(out, e.getEventKind());
      strings.write(out, e.getDeviceId());
      out.writeLong(e.getEventTs().getMillis());
      writeString(out, e.getRawPayload());
      strings.write(out, e.getSourceKind());
      strings.write(out, e.getSourceName());
      writeSource(out, e.getSource(), e.getSourceName(), strings);
      Integer partition = e.getSourcePartition();
      out.writeBoolean(partition != null);
      if (partition != null) {
        out.writeInt(partition);
      }
      out.writeLong(e.getSourceOffset());
      writeNullableInstant(out, e.getReceivedAt());
      out.writeLong(e.getIngestTs().getMillis());
      out.writeInt(e.getSchemaVersion());
      strings.write(out, e.getDate());
      out.writeInt(e.getHour());
      writeNullableString(out, e.getSensorType(), strings);
      writeNullableDouble(out, e.getValue());
      writeNullableString(out, e.getUnit(), strings);
      writeNullableLong(out, e.getSeq());
      writeNullableDouble(out, e.getBatteryPct());
      writeNullableLong(out, e.getRssiDbm());
      writeNullableString(out, e.getStatus(), strings);
      writeNullableString(out, e.getTypeErrors(), Strings.PLAIN);
      writeNullableString(out, e.getExtra(), Strings.PLAIN);
    }

    @Override
    public BronzeEvent read(In in, Strings strings) {
      String kind = strings.read(in);
      String deviceId = strings.read(in);
      Instant eventTs = new Instant(in.readLong());
      String rawPayload = readString(in);
      String sourceKind = strings.read(in);
      String sourceName = strings.read(in);
      return new AutoValue_BronzeEvent(
          kind,
          deviceId,
          eventTs,
          rawPayload,
          readSource(in, sourceName, strings),
          sourceKind,
          sourceName,
          in.readBoolean() ? in.readInt() : null,
          in.readLong(),
          readNullableInstant(in),
          new Instant(in.readLong()),
          in.readInt(),
          strings.read(in),
          in.readInt(),
          readNullableString(in, strings),
          readNullableDouble(in),
          readNullableString(in, strings),
          readNullableLong(in),
          readNullableDouble(in),
          readNullableLong(in),
          readNullableString(in, strings),
          readNullableString(in, Strings.PLAIN),
          readNullableString(in, Strings.PLAIN));
    }
  }

  /**
   * A record's coder: its fields ({@code format}), its text as it is; in a run ({@link
   * CoderInRuns}), its repeated text once per run ({@link Table}).
   */
  private static final class FormatCoder<T> extends OwnFormatSchemaCoder<T>
      implements CoderInRuns<T> {
    private static final long serialVersionUID = 1L;
    private final Format<T> format;

    FormatCoder(Class<T> type, Format<T> format) {
      super(type);
      this.format = format;
    }

    @Override
    public Coder<T> forOneRun() {
      return new RunCoder<>(format);
    }

    @Override
    public void encode(T record, OutputStream os) throws IOException {
      Out out = new Out();
      format.write(record, out, Strings.PLAIN);
      out.writeTo(os);
    }

    @Override
    public T decode(InputStream is) throws IOException {
      return format.read(In.of(is), Strings.PLAIN);
    }
  }

  /**
   * A reading's fields, Gold's first ({@link #GOLD}: its device, site and zone, its sensor type,
   * value, unit and {@code seq}, its instant and its source), then ({@link #INSTANCE}) the rest; a
   * device's and its source's text through {@code strings}.
   */
  private enum ReadingFormat implements Format<SensorReading> {
    INSTANCE(true),
    GOLD(false);

    private final boolean whole;

    ReadingFormat(boolean whole) {
      this.whole = whole;
    }

    @Override
    public void write(SensorReading r, Out out, Strings strings) {
      strings.write(out, r.getDeviceId());
      strings.write(out, r.getSite());
      strings.write(out, r.getZone());
      strings.write(out, r.getSensorType());
      out.writeDouble(r.getValue());
      strings.write(out, r.getUnit());
      writeNullableLong(out, r.getSeq());
      out.writeLong(r.getEventTs().getMillis());
      strings.write(out, r.getSourceName());
      writeSource(out, r.getSource(), r.getSourceName(), strings);
      if (whole) {
        writeNullableDouble(out, r.getLatitude());
        writeNullableDouble(out, r.getLongitude());
        writeNullableString(out, r.getModel(), strings);
        out.writeDouble(r.getOriginalValue());
        strings.write(out, r.getOriginalUnit());
        strings.write(out, r.getDate());
        writeString(out, r.getRawPayload());
        writeNullableInstant(out, r.getReceivedAt());
        out.writeLong(r.getIngestTs().getMillis());
        writeNullableString(out, r.getExtra(), Strings.PLAIN);
      }
    }

    @Override
    public SensorReading read(In in, Strings strings) {
      SensorReading.Builder b =
          SensorReading.builder()
              .setDeviceId(strings.read(in))
              .setSite(strings.read(in))
              .setZone(strings.read(in))
              .setSensorType(strings.read(in));
      double value = in.readDouble();
      String unit = strings.read(in);
      b.setValue(value).setUnit(unit).setSeq(readNullableLong(in));
      Instant eventTs = new Instant(in.readLong());
      String sourceName = strings.read(in);
      b.setEventTs(eventTs)
          .setSourceName(sourceName)
          .setSource(readSource(in, sourceName, strings));
      if (!whole) {
        return b.setOriginalValue(value)
            .setOriginalUnit(unit)
            .setDate("")
            .setRawPayload("")
            .setIngestTs(eventTs)
            .build();
      }
      return b.setLatitude(readNullableDouble(in))
          .setLongitude(readNullableDouble(in))
          .setModel(readNullableString(in, strings))
          .setOriginalValue(in.readDouble())
          .setOriginalUnit(strings.read(in))
          .setDate(strings.read(in))
          .setRawPayload(readString(in))
          .setReceivedAt(readNullableInstant(in))
          .setIngestTs(new Instant(in.readLong()))
          .setExtra(readNullableString(in, Strings.PLAIN))
          .build();
    }
  }

  /**
   * A heartbeat's fields, Gold's first ({@link #GOLD}: its device, site and zone, its battery, RSSI
   * and status, its instant and its source), then ({@link #INSTANCE}) the rest; a device's and its
   * source's text through {@code strings}.
   */
  private enum HeartbeatFormat implements Format<Heartbeat> {
    INSTANCE(true),
    GOLD(false);

    private final boolean whole;

    HeartbeatFormat(boolean whole) {
      this.whole = whole;
    }

    @Override
    public void write(Heartbeat h, Out out, Strings strings) {
      strings.write(out, h.getDeviceId());
      strings.write(out, h.getSite());
      strings.write(out, h.getZone());
      out.writeDouble(h.getBatteryPct());
      out.writeLong(h.getRssiDbm());
      strings.write(out, h.getStatus());
      out.writeLong(h.getEventTs().getMillis());
      strings.write(out, h.getSourceName());
      writeSource(out, h.getSource(), h.getSourceName(), strings);
      if (whole) {
        writeNullableDouble(out, h.getLatitude());
        writeNullableDouble(out, h.getLongitude());
        writeNullableString(out, h.getModel(), strings);
        strings.write(out, h.getDate());
        writeString(out, h.getRawPayload());
        writeNullableInstant(out, h.getReceivedAt());
        out.writeLong(h.getIngestTs().getMillis());
        writeNullableString(out, h.getExtra(), Strings.PLAIN);
      }
    }

    @Override
    public Heartbeat read(In in, Strings strings) {
      Heartbeat.Builder b =
          Heartbeat.builder()
              .setDeviceId(strings.read(in))
              .setSite(strings.read(in))
              .setZone(strings.read(in))
              .setBatteryPct(in.readDouble())
              .setRssiDbm(in.readLong())
              .setStatus(strings.read(in));
      Instant eventTs = new Instant(in.readLong());
      String sourceName = strings.read(in);
      b.setEventTs(eventTs)
          .setSourceName(sourceName)
          .setSource(readSource(in, sourceName, strings));
      if (!whole) {
        return b.setDate("").setRawPayload("").setIngestTs(eventTs).build();
      }
      return b.setLatitude(readNullableDouble(in))
          .setLongitude(readNullableDouble(in))
          .setModel(readNullableString(in, strings))
          .setDate(strings.read(in))
          .setRawPayload(readString(in))
          .setReceivedAt(readNullableInstant(in))
          .setIngestTs(new Instant(in.readLong()))
          .setExtra(readNullableString(in, Strings.PLAIN))
          .build();
    }
  }

  /** A record's fields, written to and read from a record's bytes. */
  private interface Format<T> {
    void write(T record, Out out, Strings strings);

    T read(In in, Strings strings);
  }

  /**
   * How a record's text that repeats from record to record (its device's, its sensor type's, its
   * source's) is written: as it is ({@link #PLAIN}, a record on its own), or once per batch ({@link
   * Table}).
   */
  private interface Strings {
    Strings PLAIN =
        new Strings() {
          @Override
          public void write(Out out, String s) {
            writeString(out, s);
          }

          @Override
          public String read(In in) {
            return in.readString();
          }
        };

    void write(Out out, String s);

    String read(In in);
  }

  /**
   * The text of a batch's records, each distinct string written once: its first time as it is
   * (after a 0), every later time as its number in the batch (1, 2, …), in 1 to 5 bytes. Decoded,
   * the records share one string for each.
   */
  private static final class Table implements Strings {
    private final Map<String, Integer> numbers = new HashMap<>();
    private final List<String> strings = new ArrayList<>();

    @Override
    public void write(Out out, String s) {
      Integer known = numbers.get(s);
      if (known != null) {
        out.writeVarInt(known);
        return;
      }
      numbers.put(s, numbers.size() + 1);
      out.writeVarInt(0);
      writeString(out, s);
    }

    @Override
    public String read(In in) {
      int number = in.readVarInt();
      if (number > 0) {
        return strings.get(number - 1);
      }
      String s = in.readString();
      strings.add(s);
      return s;
    }
  }

  /**
   * A batch of records (Gold's batches of readings and of heartbeats, {@link
   * dev.medallion.core.KeyedBatches}): their number, then each record's fields, its repeated text
   * once per batch ({@link Table}), the whole after its length.
   */
  private static final class BatchCoder<T> extends CustomCoder<List<T>> {
    private static final long serialVersionUID = 1L;
    private final Format<T> format;

    BatchCoder(Format<T> format) {
      this.format = format;
    }

    @Override
    public void encode(List<T> records, OutputStream os) throws IOException {
      Out out = new Out();
      out.writeInt(records.size());
      Table table = new Table();
      for (T record : records) {
        format.write(record, out, table);
      }
      out.writeTo(os);
    }

    @Override
    public List<T> decode(InputStream is) throws IOException {
      In in = In.of(is);
      int size = in.readInt();
      List<T> records = new ArrayList<>(size);
      Table table = new Table();
      for (int i = 0; i < size; i++) {
        records.add(format.read(in, table));
      }
      return records;
    }
  }

  /** The records of one run ({@link FormatCoder#forOneRun}), their repeated text once. */
  private static final class RunCoder<T> extends CustomCoder<T> {
    private static final long serialVersionUID = 1L;
    private final Format<T> format;
    private final Table table = new Table();

    RunCoder(Format<T> format) {
      this.format = format;
    }

    @Override
    public void encode(T record, OutputStream os) throws IOException {
      Out out = new Out();
      format.write(record, out, table);
      out.writeTo(os);
    }

    @Override
    public T decode(InputStream is) throws IOException {
      return format.read(In.of(is), table);
    }
  }

  /** A record's bytes, written into a growing array, then to the stream after their length. */
  private static final class Out {
    private byte[] buf = new byte[256];
    private int n;

    private void ensure(int more) {
      if (n + more > buf.length) {
        buf = Arrays.copyOf(buf, Math.max(buf.length * 2, n + more));
      }
    }

    void writeBoolean(boolean b) {
      ensure(1);
      buf[n++] = (byte) (b ? 1 : 0);
    }

    void writeInt(int v) {
      ensure(4);
      INT.set(buf, n, v);
      n += 4;
    }

    void writeLong(long v) {
      ensure(8);
      LONG.set(buf, n, v);
      n += 8;
    }

    void writeDouble(double v) {
      writeLong(Double.doubleToRawLongBits(v));
    }

    void writeVarInt(int v) {
      ensure(5);
      while ((v & ~0x7F) != 0) {
        buf[n++] = (byte) ((v & 0x7F) | 0x80);
        v >>>= 7;
      }
      buf[n++] = (byte) v;
    }

    void writeBytes(byte[] b) {
      ensure(4 + b.length);
      INT.set(buf, n, b.length);
      System.arraycopy(b, 0, buf, n + 4, b.length);
      n += 4 + b.length;
    }

    void writeTo(OutputStream os) throws IOException {
      VarInt.encode(n, os);
      os.write(buf, 0, n);
    }
  }

  /** A record's bytes, read whole after their length. */
  private static final class In {
    private final byte[] buf;
    private int at;

    private In(byte[] buf) {
      this.buf = buf;
    }

    static In of(InputStream is) throws IOException {
      int length = VarInt.decodeInt(is);
      byte[] buf = new byte[length];
      if (is.readNBytes(buf, 0, length) != length) {
        throw new EOFException("a record of " + length + " bytes ends early");
      }
      return new In(buf);
    }

    boolean readBoolean() {
      return buf[at++] != 0;
    }

    int readInt() {
      int v = (int) INT.get(buf, at);
      at += 4;
      return v;
    }

    long readLong() {
      long v = (long) LONG.get(buf, at);
      at += 8;
      return v;
    }

    double readDouble() {
      return Double.longBitsToDouble(readLong());
    }

    int readVarInt() {
      int v = 0;
      for (int shift = 0; ; shift += 7) {
        byte b = buf[at++];
        v |= (b & 0x7F) << shift;
        if (b >= 0) {
          return v;
        }
      }
    }

    String readString() {
      int length = (int) INT.get(buf, at);
      String s = new String(buf, at + 4, length, StandardCharsets.UTF_8);
      at += 4 + length;
      return s;
    }
  }

  private static final VarHandle LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);

  /**
   * A record's source ({@code file:/data/a.ndjson#12}, {@code kafka:iot.raw/0#1042}) around its
   * source name, which the record carries too and was written before it: the text before the name
   * (the source's kind) through {@code strings}, the text after it (partition and offset) as it is;
   * a source that does not hold its name, whole. Every record's source is different: through a
   * batch's or run's table of text, each one was hashed and added to it, and written whole.
   */
  private static void writeSource(Out out, String source, String sourceName, Strings strings) {
    int at = sourceName.isEmpty() ? -1 : source.indexOf(sourceName);
    out.writeBoolean(at >= 0);
    if (at < 0) {
      writeString(out, source);
      return;
    }
    strings.write(out, source.substring(0, at));
    writeString(out, source.substring(at + sourceName.length()));
  }

  private static String readSource(In in, String sourceName, Strings strings) {
    if (!in.readBoolean()) {
      return readString(in);
    }
    String before = strings.read(in);
    return before + sourceName + readString(in);
  }

  private static void writeString(Out out, String s) {
    out.writeBytes(s.getBytes(StandardCharsets.UTF_8));
  }

  private static String readString(In in) {
    return in.readString();
  }

  private static void writeNullableString(Out out, @Nullable String s, Strings strings) {
    out.writeBoolean(s != null);
    if (s != null) {
      strings.write(out, s);
    }
  }

  private static @Nullable String readNullableString(In in, Strings strings) {
    return in.readBoolean() ? strings.read(in) : null;
  }

  private static void writeNullableDouble(Out out, @Nullable Double d) {
    out.writeBoolean(d != null);
    if (d != null) {
      out.writeDouble(d);
    }
  }

  private static @Nullable Double readNullableDouble(In in) {
    return in.readBoolean() ? in.readDouble() : null;
  }

  private static void writeNullableLong(Out out, @Nullable Long v) {
    out.writeBoolean(v != null);
    if (v != null) {
      out.writeLong(v);
    }
  }

  private static @Nullable Long readNullableLong(In in) {
    return in.readBoolean() ? in.readLong() : null;
  }

  private static void writeNullableInstant(Out out, @Nullable Instant t) {
    out.writeBoolean(t != null);
    if (t != null) {
      out.writeLong(t.getMillis());
    }
  }

  private static @Nullable Instant readNullableInstant(In in) {
    return in.readBoolean() ? new Instant(in.readLong()) : null;
  }
}
