/** The process's pino logger, for code that writes request-scoped lines (with the trace ID). */
export const ROOT_LOGGER = Symbol('ROOT_LOGGER');
