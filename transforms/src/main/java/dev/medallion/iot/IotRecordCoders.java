package dev.medallion.iot;

import dev.medallion.core.OwnFormatSchemaCoder;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.beam.sdk.schemas.SchemaCoder;
import org.apache.beam.sdk.util.VarInt;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * Coders of Bronze's and Silver's records written field by field: every field, in declaration
 * order, a flag before each nullable one, the record's length first. They are schema coders of the
 * records' own schemas ({@link OwnFormatSchemaCoder}), set on the PCollections of Bronze's events
 * ({@link IngestToBronze}) and Silver's readings and heartbeats ({@link ValidateAndEnrich}), and
 * they encode Gold's batches ({@link WindowedDeviceStats#withExpectedDevices}).
 *
 * <p>The records' schema coders go through a Beam {@code Row} for each record (getters, a null
 * bitmap, a coder per field, and a builder to decode): encoding and decoding Gold's batches with
 * them was a tenth of the IoT replay's CPU samples on the DirectRunner, and on Spark, where the
 * outputs of Bronze's parse, Silver's checks and Gold's lateness split are kept encoded and decoded
 * by each reader, a quarter (JFR, 2026-12-04).
 */
final class IotRecordCoders {
  private IotRecordCoders() {}

  static final SchemaCoder<BronzeEvent> BRONZE = new BronzeCoder();
  static final SchemaCoder<SensorReading> READING = new ReadingCoder();
  static final SchemaCoder<Heartbeat> HEARTBEAT = new HeartbeatCoder();

  private static final class BronzeCoder extends OwnFormatSchemaCoder<BronzeEvent> {
    private static final long serialVersionUID = 1L;

    BronzeCoder() {
      super(BronzeEvent.class);
    }

    @Override
    public void encode(BronzeEvent e, OutputStream os) throws IOException {
      Out out = new Out();
      writeString(out, e.getEventKind());
      writeString(out, e.getDeviceId());
      out.writeLong(e.getEventTs().getMillis());
      writeString(out, e.getRawPayload());
      writeString(out, e.getSource());
      writeString(out, e.getSourceKind());
      writeString(out, e.getSourceName());
      Integer partition = e.getSourcePartition();
      out.writeBoolean(partition != null);
      if (partition != null) {
        out.writeInt(partition);
      }
      out.writeLong(e.getSourceOffset());
      writeNullableInstant(out, e.getReceivedAt());
      out.writeLong(e.getIngestTs().getMillis());
      out.writeInt(e.getSchemaVersion());
      writeString(out, e.getDate());
      out.writeInt(e.getHour());
      writeNullableString(out, e.getSensorType());
      writeNullableDouble(out, e.getValue());
      writeNullableString(out, e.getUnit());
      writeNullableLong(out, e.getSeq());
      writeNullableDouble(out, e.getBatteryPct());
      writeNullableLong(out, e.getRssiDbm());
      writeNullableString(out, e.getStatus());
      writeNullableString(out, e.getTypeErrors());
      writeNullableString(out, e.getExtra());
      out.writeTo(os);
    }

    @Override
    public BronzeEvent decode(InputStream is) throws IOException {
      In in = In.of(is);
      return new AutoValue_BronzeEvent(
          readString(in),
          readString(in),
          new Instant(in.readLong()),
          readString(in),
          readString(in),
          readString(in),
          readString(in),
          in.readBoolean() ? in.readInt() : null,
          in.readLong(),
          readNullableInstant(in),
          new Instant(in.readLong()),
          in.readInt(),
          readString(in),
          in.readInt(),
          readNullableString(in),
          readNullableDouble(in),
          readNullableString(in),
          readNullableLong(in),
          readNullableDouble(in),
          readNullableLong(in),
          readNullableString(in),
          readNullableString(in),
          readNullableString(in));
    }
  }

  private static final class ReadingCoder extends OwnFormatSchemaCoder<SensorReading> {
    private static final long serialVersionUID = 1L;

    ReadingCoder() {
      super(SensorReading.class);
    }

    @Override
    public void encode(SensorReading r, OutputStream os) throws IOException {
      Out out = new Out();
      writeString(out, r.getDeviceId());
      writeString(out, r.getSite());
      writeString(out, r.getZone());
      writeNullableDouble(out, r.getLatitude());
      writeNullableDouble(out, r.getLongitude());
      writeNullableString(out, r.getModel());
      writeString(out, r.getSensorType());
      out.writeDouble(r.getValue());
      writeString(out, r.getUnit());
      out.writeDouble(r.getOriginalValue());
      writeString(out, r.getOriginalUnit());
      writeNullableLong(out, r.getSeq());
      out.writeLong(r.getEventTs().getMillis());
      writeString(out, r.getDate());
      writeString(out, r.getRawPayload());
      writeString(out, r.getSource());
      writeString(out, r.getSourceName());
      writeNullableInstant(out, r.getReceivedAt());
      out.writeLong(r.getIngestTs().getMillis());
      writeNullableString(out, r.getExtra());
      out.writeTo(os);
    }

    @Override
    public SensorReading decode(InputStream is) throws IOException {
      In in = In.of(is);
      return SensorReading.builder()
          .setDeviceId(readString(in))
          .setSite(readString(in))
          .setZone(readString(in))
          .setLatitude(readNullableDouble(in))
          .setLongitude(readNullableDouble(in))
          .setModel(readNullableString(in))
          .setSensorType(readString(in))
          .setValue(in.readDouble())
          .setUnit(readString(in))
          .setOriginalValue(in.readDouble())
          .setOriginalUnit(readString(in))
          .setSeq(readNullableLong(in))
          .setEventTs(new Instant(in.readLong()))
          .setDate(readString(in))
          .setRawPayload(readString(in))
          .setSource(readString(in))
          .setSourceName(readString(in))
          .setReceivedAt(readNullableInstant(in))
          .setIngestTs(new Instant(in.readLong()))
          .setExtra(readNullableString(in))
          .build();
    }
  }

  private static final class HeartbeatCoder extends OwnFormatSchemaCoder<Heartbeat> {
    private static final long serialVersionUID = 1L;

    HeartbeatCoder() {
      super(Heartbeat.class);
    }

    @Override
    public void encode(Heartbeat h, OutputStream os) throws IOException {
      Out out = new Out();
      writeString(out, h.getDeviceId());
      writeString(out, h.getSite());
      writeString(out, h.getZone());
      writeNullableDouble(out, h.getLatitude());
      writeNullableDouble(out, h.getLongitude());
      writeNullableString(out, h.getModel());
      out.writeDouble(h.getBatteryPct());
      out.writeLong(h.getRssiDbm());
      writeString(out, h.getStatus());
      out.writeLong(h.getEventTs().getMillis());
      writeString(out, h.getDate());
      writeString(out, h.getRawPayload());
      writeString(out, h.getSource());
      writeString(out, h.getSourceName());
      writeNullableInstant(out, h.getReceivedAt());
      out.writeLong(h.getIngestTs().getMillis());
      writeNullableString(out, h.getExtra());
      out.writeTo(os);
    }

    @Override
    public Heartbeat decode(InputStream is) throws IOException {
      In in = In.of(is);
      return Heartbeat.builder()
          .setDeviceId(readString(in))
          .setSite(readString(in))
          .setZone(readString(in))
          .setLatitude(readNullableDouble(in))
          .setLongitude(readNullableDouble(in))
          .setModel(readNullableString(in))
          .setBatteryPct(in.readDouble())
          .setRssiDbm(in.readLong())
          .setStatus(readString(in))
          .setEventTs(new Instant(in.readLong()))
          .setDate(readString(in))
          .setRawPayload(readString(in))
          .setSource(readString(in))
          .setSourceName(readString(in))
          .setReceivedAt(readNullableInstant(in))
          .setIngestTs(new Instant(in.readLong()))
          .setExtra(readNullableString(in))
          .build();
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

  private static void writeString(Out out, String s) {
    out.writeBytes(s.getBytes(StandardCharsets.UTF_8));
  }

  private static String readString(In in) {
    return in.readString();
  }

  private static void writeNullableString(Out out, @Nullable String s) {
    out.writeBoolean(s != null);
    if (s != null) {
      writeString(out, s);
    }
  }

  private static @Nullable String readNullableString(In in) {
    return in.readBoolean() ? readString(in) : null;
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
