import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import type { Bindings, ChildLoggerOptions, LevelWithSilent, Logger } from 'pino';

type LogLevel = Exclude<LevelWithSilent, 'silent'>;
type LogCall = (...args: unknown[]) => void;

/**
 * A request's logger that makes its pino child (the request id bound, redaction set up) on the
 * first line logged at an enabled level. Fastify makes that child for every request; at
 * LOG_LEVEL=warn or above no request line is written, yet the child cost ≈ 2 % of a vote's CPU
 * in `npm run bench` profiles. Lines that are logged come out exactly as the child would write them.
 */
class LazyRequestLogger implements FastifyBaseLogger {
  readonly #parent: Logger;
  readonly #bindings: Bindings;
  readonly #options: ChildLoggerOptions;
  #child: Logger | undefined;

  constructor(parent: Logger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  #real(): Logger {
    return (this.#child ??= this.#parent.child(this.#bindings, this.#options));
  }

  #log(level: LogLevel, args: unknown[]): void {
    if (this.#child === undefined && !this.#parent.isLevelEnabled(level)) return;
    const real = this.#real();
    (real[level] as LogCall).apply(real, args);
  }

  get level(): string {
    return this.#child?.level ?? this.#parent.level;
  }
  set level(level: string) {
    this.#real().level = level;
  }
  isLevelEnabled(level: string): boolean {
    return (this.#child ?? this.#parent).isLevelEnabled(level);
  }
  bindings(): Bindings {
    return this.#real().bindings();
  }
  child(bindings: Bindings, options?: ChildLoggerOptions): Logger {
    return this.#real().child(bindings, options);
  }
  fatal(...args: unknown[]): void {
    this.#log('fatal', args);
  }
  error(...args: unknown[]): void {
    this.#log('error', args);
  }
  warn(...args: unknown[]): void {
    this.#log('warn', args);
  }
  info(...args: unknown[]): void {
    this.#log('info', args);
  }
  debug(...args: unknown[]): void {
    this.#log('debug', args);
  }
  trace(...args: unknown[]): void {
    this.#log('trace', args);
  }
  silent(): void {}
}

const isPino = (logger: FastifyBaseLogger): logger is FastifyBaseLogger & Logger =>
  typeof (logger as Partial<Logger>).isLevelEnabled === 'function' && typeof (logger as Partial<Logger>).bindings === 'function';

/**
 * Fastify's `childLoggerFactory`: a route with a log level of its own gets its child at once (its
 * level decides what is written), and so does every request when logging is off (Fastify's no-op
 * logger); every other request a lazy one.
 */
export const lazyRequestLoggers: NonNullable<FastifyServerOptions['childLoggerFactory']> = (logger, bindings, options) =>
  options.level !== undefined || !isPino(logger)
    ? logger.child(bindings, options)
    : new LazyRequestLogger(logger, bindings, options);
