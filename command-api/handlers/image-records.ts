import { changeOf, referenceStream } from '../../domain/reference-data/record.ts';
import { imageStream, type ImageUploaded } from '../../domain/images/image.ts';
import type { EventStore } from '../../infrastructure/event-store/port.ts';

/** A breed exists while its stream's last event is not a withdrawal (the command side reads no read model). */
export const breedExists = async (store: EventStore, breedId: string): Promise<boolean> => {
  const [last] = await store.readStream(referenceStream('breed', breedId), { direction: 'backwards', maxCount: 1 });
  return last !== undefined && changeOf(last.type) !== 'withdrawn';
};

/** The upload event of an image (its first), for answers that show the image. */
export const uploadOf = async (store: EventStore, imageId: string): Promise<ImageUploaded['data'] | null> => {
  const [first] = await store.readStream(imageStream(imageId), { maxCount: 1 });
  return first?.type === 'ImageUploaded' ? (first.data as ImageUploaded['data']) : null;
};
