package dev.medallion.records;

import com.google.auto.value.AutoValue;
import org.apache.beam.sdk.schemas.AutoValueSchema;
import org.apache.beam.sdk.schemas.annotations.DefaultSchema;
import org.apache.beam.sdk.schemas.annotations.SchemaCaseFormat;
import org.apache.beam.vendor.guava.v32_1_2_jre.com.google.common.base.CaseFormat;

/**
 * A row of the device registry CSV: {@code
 * device_id,site,zone,latitude,longitude,model,installed_at}.
 */
@AutoValue
@DefaultSchema(AutoValueSchema.class)
@SchemaCaseFormat(CaseFormat.LOWER_UNDERSCORE)
public abstract class Device {
  public abstract String getDeviceId();

  public abstract String getSite();

  public abstract String getZone();

  public abstract double getLatitude();

  public abstract double getLongitude();

  public abstract String getModel();

  public abstract String getInstalledAt();

  public static Device of(
      String deviceId,
      String site,
      String zone,
      double latitude,
      double longitude,
      String model,
      String installedAt) {
    return new AutoValue_Device(deviceId, site, zone, latitude, longitude, model, installedAt);
  }
}
