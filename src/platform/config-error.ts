/** A setting that is missing or malformed: the process refuses to start and says which. */
export class ConfigError extends Error {}
