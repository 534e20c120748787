/**
 * The bus port: topics of keyed messages, consumed by consumer groups with at-least-once
 * delivery. Every group receives every message of its topics; members of one group share the
 * work. Messages with the same key keep their order. A handler that throws gets the same
 * message again (after a back-off); its offset is committed only after the handler resolved,
 * so work must be idempotent.
 */
export type OutgoingMessage = { topic: string; key: string; value: string };

export type IncomingMessage = OutgoingMessage & { offset: string };

export type ConsumeOptions = {
  group: string;
  topics: string[];
  handle: (message: IncomingMessage) => Promise<void>;
  onError?: (error: unknown, message: IncomingMessage) => void;
};

export type Consumer = { stop: () => Promise<void> };

export interface Bus {
  /** Resolves once every message is durably accepted by the bus (acknowledged). */
  publish(messages: OutgoingMessage[]): Promise<void>;
  consume(options: ConsumeOptions): Promise<Consumer>;
  close(): Promise<void>;
}
