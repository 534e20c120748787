/*
 * Kept apart from mongo-client.ts so that a process can report the counts (ops.ts) without
 * loading the MongoDB driver when it has no MongoDB adapter.
 */

/**
 * Commands this process has sent to MongoDB (round trips), by command name and collection, counted
 * when MONGO_MONITOR_COMMANDS=true (`bench/mongo-round-trips.ts`; the /metrics gauge
 * `mongo_commands`). Off by default: with command monitoring on, the driver decodes every reply
 * in full for its events.
 */
export const mongoCommandCounts = new Map<string, { command: string; collection: string; count: number }>();

export const monitorsMongoCommands = (): boolean => process.env.MONGO_MONITOR_COMMANDS === 'true';

/** The collection a command names: its first field's value for CRUD commands, `collection` for getMore. */
const collectionOf = (commandName: string, command: Record<string, unknown>): string => {
  const named = commandName === 'getMore' ? command.collection : command[commandName];
  return typeof named === 'string' ? named : '';
};

export const countCommand = (commandName: string, command: Record<string, unknown>): void => {
  const collection = collectionOf(commandName, command);
  const key = `${commandName} ${collection}`;
  const entry = mongoCommandCounts.get(key);
  if (entry) entry.count++;
  else mongoCommandCounts.set(key, { command: commandName, collection, count: 1 });
};
