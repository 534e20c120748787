import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { scoreFromSide } from '../../domain/pet-analyses/body-condition.ts';
import { measureSideView } from '../../domain/pet-analyses/silhouette.ts';
import { fixturePath, openVisionModels, resolveModelDir } from '../../infrastructure/vision/index.ts';
import { MIN_MASK_QUALITY } from './body-condition.ts';
import { silhouetteOf } from './silhouette.ts';

/**
 * The silhouette extraction with the real detector on scikit-image's photos: the horse (a black
 * side-view silhouette) is boxed, masked cleanly and measured as a lean, tucked body; the cat
 * close-up (a face filling the frame, no body) gives a mask too poor to measure. Skipped when the
 * models are not installed (`npm run models`), except with CI=true (vision.int.spec fails then).
 */
const installed = existsSync(join(resolveModelDir(), 'manifest.json')) && fixturePath('horse') !== null;
if (!installed) console.warn('silhouette-models.int.spec: image models not installed: skipped');

describe.runIf(installed)('silhouettes from the real detector', () => {
  const vision = openVisionModels();
  afterAll(async () => vision.close());

  it('the horse silhouette: clean mask, side view measured with a tuck and no sag (WSAVA 4–5)', async () => {
    const found = await silhouetteOf(vision, readFileSync(fixturePath('horse')!), '3');
    if (!('silhouette' in found)) throw new Error(found.reason);
    expect(found.silhouette.quality).toBeGreaterThan(0.9);
    const side = measureSideView(found.silhouette.mask)!;
    expect(side.tuck).toBeGreaterThan(0.1);
    expect(side.sag).toBeLessThan(0);
    expect(Math.round(scoreFromSide(side))).toBeGreaterThanOrEqual(4);
    expect(Math.round(scoreFromSide(side))).toBeLessThanOrEqual(5);
  }, 120_000);

  it('the cat close-up: boxed, but the mask is too poor to measure a body', async () => {
    const found = await silhouetteOf(vision, readFileSync(fixturePath('chelsea')!), '1');
    if (!('silhouette' in found)) throw new Error(found.reason);
    expect(found.silhouette.quality).toBeLessThan(MIN_MASK_QUALITY);
  }, 120_000);
});
