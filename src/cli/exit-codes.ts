/** Process exit codes, documented in docs/cli.md. */
export const ExitCode = {
  ok: 0,
  /** The command ran and failed (upstream unreachable, a partition failed...). */
  failure: 1,
  /** Bad configuration or arguments: nothing was done. */
  usage: 2,
  /** The upstream refused the credential. */
  auth: 3,
  /**
   * Every partition ran, but records were quarantined or a list may hold more than was read:
   * the data is kept (etl.responses, etl.rejected_records), the warehouse is not yet complete.
   * grant-reader: the role was granted, but it keeps a power the server would not let this role
   * take away (temporary tables, large objects, advisory locks).
   */
  attention: 4,
  /**
   * Stopped by SIGTERM or SIGINT before it ended: what ran is recorded (interrupted partitions
   * are neither failed nor lost; the next run takes them up). 128 + SIGINT's number, as shells do.
   */
  interrupted: 130,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
