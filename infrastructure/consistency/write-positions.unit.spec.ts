import { writePositionsContract } from './write-positions.contract.ts';
import { inMemoryWritePositions } from './write-positions.ts';

writePositionsContract('in memory', async () => inMemoryWritePositions());
