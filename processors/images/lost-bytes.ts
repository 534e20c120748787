import { DomainError } from '../../domain/errors.ts';
import { deleteImageDecider } from '../../domain/images/delete.ts';
import { imageStream } from '../../domain/images/image.ts';
import type { RecordedEvent } from '../../infrastructure/event-store/port.ts';
import { handleCommand } from '../../infrastructure/event-store/command-handler.ts';
import type { ProcessorDeps } from '../processor.ts';
import { processorContext } from './context.ts';

/**
 * An image that was never deleted but whose stored bytes are gone: its blob store lost writes it
 * had acknowledged (a Mongo-wire server killed before GridFS's chunks reached its disk; the fault
 * suite's "Mongo-wire server killed" left one so). It can never be validated, labelled or served,
 * and left as it is its status would never move (clients poll `to_be_reviewed` until it does). So
 * the processor deletes it in its owner's name (the event's actor names the processor): the next
 * status poll answers 404, the client uploads again, and the clean-up runs as for any deletion.
 * An image deleted meanwhile is left alone.
 */
export const discardImageWithLostBytes = async (
  deps: Pick<ProcessorDeps, 'eventStore' | 'logger'>,
  processor: string,
  event: Pick<RecordedEvent, 'id' | 'metadata'>,
  image: { image_id: string; account_id: string },
): Promise<void> => {
  deps.logger.warn({ image_id: image.image_id }, 'image bytes are gone though the image was not deleted (its store lost them): deleting the image');
  try {
    await handleCommand(
      deps.eventStore,
      imageStream(image.image_id),
      deleteImageDecider,
      { type: 'DeleteImage', account_id: image.account_id, now: new Date().toISOString() },
      processorContext(processor, event),
    );
  } catch (error) {
    if (error instanceof DomainError && error.code === 'not_found') return;
    throw error;
  }
};
