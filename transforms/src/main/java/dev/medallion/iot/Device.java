package dev.medallion.iot;

import com.google.auto.value.AutoValue;
import org.apache.beam.sdk.schemas.AutoValueSchema;
import org.apache.beam.sdk.schemas.annotations.DefaultSchema;
import org.apache.beam.sdk.schemas.annotations.SchemaCaseFormat;
import org.apache.beam.sdk.schemas.annotations.SchemaFieldNumber;
import org.apache.beam.vendor.guava.v32_1_2_jre.com.google.common.base.CaseFormat;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * A row of the device registry CSV: {@code
 * device_id,site,zone,latitude,longitude,model,installed_at}. Only the first three are required;
 * the others are null when the registry leaves them empty or has no such column.
 */
@AutoValue
@DefaultSchema(AutoValueSchema.class)
@SchemaCaseFormat(CaseFormat.LOWER_UNDERSCORE)
public abstract class Device {
  @SchemaFieldNumber("0")
  public abstract String getDeviceId();

  @SchemaFieldNumber("1")
  public abstract String getSite();

  @SchemaFieldNumber("2")
  public abstract String getZone();

  @SchemaFieldNumber("3")
  public abstract @Nullable Double getLatitude();

  @SchemaFieldNumber("4")
  public abstract @Nullable Double getLongitude();

  @SchemaFieldNumber("5")
  public abstract @Nullable String getModel();

  @SchemaFieldNumber("6")
  public abstract @Nullable String getInstalledAt();

  public static Device of(
      String deviceId,
      String site,
      String zone,
      @Nullable Double latitude,
      @Nullable Double longitude,
      @Nullable String model,
      @Nullable String installedAt) {
    return new AutoValue_Device(deviceId, site, zone, latitude, longitude, model, installedAt);
  }
}
