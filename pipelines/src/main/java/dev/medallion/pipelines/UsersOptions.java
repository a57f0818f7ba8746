package dev.medallion.pipelines;

import dev.medallion.lakehouse.LakehouseOptions;
import org.apache.beam.sdk.options.Default;
import org.apache.beam.sdk.options.Description;

/** Options of the batch user-features pipeline. The same flags work on every runner. */
public interface UsersOptions extends LakehouseOptions {
  @Description(
      "Snapshot date YYYY-MM-DD of gold/user_features; default: the latest event date in Silver.")
  @Default.String("")
  String getAsOf();

  void setAsOf(String value);

  @Description(
      "Changes of data: records with op (I, U, D) and updated_at are versions of the record with"
          + " this key field (e.g. event_id); the latest wins in Silver and a delete removes the"
          + " record (the other versions are quarantined as cdc_superseded, cdc_deleted). Empty:"
          + " no record is a change.")
  @Default.String("")
  String getCdcKey();

  void setCdcKey(String value);

  @Description(
      "Read again the --input files that changed since a run ingested them, and replace their"
          + " rows in Bronze (and their Bronze dead letters) in the run's commit; without it they"
          + " are named and skipped.")
  @Default.Boolean(false)
  boolean getReingest();

  void setReingest(boolean value);

  @Description(
      "Days an event's time may be ahead of the moment it was ingested; later is quarantined as"
          + " future_event_timestamp (a clock error such as 9999-12-31).")
  @Default.Integer(30)
  int getMaxFutureDays();

  void setMaxFutureDays(int value);
}
