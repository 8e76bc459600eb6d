import { type AppConfig, loadConfig, type LoadConfigOptions } from "../config/load-config.js";
import { STREAM_NAMES } from "../streams/registry.js";

/** The configuration as every command reads it: its stream names checked against the registry. */
export function loadAppConfig(options: Omit<LoadConfigOptions, "streams"> = {}): AppConfig {
  return loadConfig({ ...options, streams: STREAM_NAMES });
}
