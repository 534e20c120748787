import { analyseBreathing, SPECIES_BREATHING, UNKNOWN_SPECIES_BREATHING } from '../../domain/pet-analyses/breathing.ts';
import {
  respiratoryRateEvents,
  respiratoryRateDecider,
  respiratoryRateStream,
} from '../../domain/pet-analyses/respiratory-rate.ts';
import { handleCommand, type CommandContext } from '../../infrastructure/event-store/command-handler.ts';
import { MediaBusyError } from '../../infrastructure/media/media-slots.ts';
import { decodeGreyFrames } from './decode-frames.ts';
import { defineProcessor } from '../processor.ts';

/**
 * Respiratory rate: on RespiratoryRateRequested, appends processing, decodes the requested video
 * into small grey frames and reads the dominant breathing rhythm in the species' band, then
 * appends completed (rate, the species' resting baseline, whether it lies within) or failed with
 * the reason. A redelivered request finds the stream past `pending` and, if it is still
 * processing (a crash mid-analysis), runs the deterministic analysis again; a finished one is left.
 */
export const respiratoryRateProcessor = defineProcessor({
  name: 'pet-analyses.respiratory-rate',
  streams: [respiratoryRateEvents],
  async handle(event, deps) {
    if (event.type !== 'RespiratoryRateRequested') return;
    const request = event.data;
    const stream = respiratoryRateStream(request.result_id);
    const context: CommandContext = {
      accountId: request.account_id,
      requestId: null,
      correlationId: event.metadata.correlation_id ?? null,
      causationId: event.id,
      actor: 'processor:respiratory-rate',
    };
    const started = await handleCommand(deps.eventStore, stream, respiratoryRateDecider, { type: 'StartRespiratoryRate', now: new Date().toISOString() }, context);
    if (started.state.status !== 'processing') return;

    const species = (request.species_id && SPECIES_BREATHING[request.species_id]) || UNKNOWN_SPECIES_BREATHING;
    const fail = (reason: string) =>
      handleCommand(deps.eventStore, stream, respiratoryRateDecider, { type: 'FailRespiratoryRate', reason, now: new Date().toISOString() }, context);

    if (!deps.blobs) throw new Error('the respiratory-rate processor needs the blob store');
    const blob = await deps.blobs.stream(request.blob_key);
    if (!blob) {
      await fail('the video is no longer stored (the pet or the video was removed)');
      return;
    }
    let frames;
    try {
      frames = await decodeGreyFrames(blob.stream);
    } catch (error) {
      // Too many decodes waiting in this process: the bus delivers the request again later.
      if (error instanceof MediaBusyError) throw error;
      deps.logger.warn({ err: error, result_id: request.result_id }, 'respiratory-rate video could not be decoded');
      await fail((error as Error).message);
      return;
    }
    const result = analyseBreathing(frames, species.band);
    if (!result.ok) {
      await fail(result.reason);
      return;
    }
    await handleCommand(
      deps.eventStore,
      stream,
      respiratoryRateDecider,
      {
        type: 'CompleteRespiratoryRate',
        breaths_per_minute: result.breaths_per_minute,
        breed_baseline: species.baseline,
        reasons:
          `${result.reasons}; baseline: resting ${species.name} ` +
          (species.baseline ? `${species.baseline.low}–${species.baseline.high}/min` : 'unknown (no species on the pet)'),
        now: new Date().toISOString(),
      },
      context,
    );
  },
});
