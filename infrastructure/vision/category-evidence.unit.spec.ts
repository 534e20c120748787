/**
 * The category rule (domain/images/categories.ts) names ImageNet classes by index and COCO objects
 * by label: every one must be a class the installed classifier has and an object the detector
 * reports, and the indices must be the classes the comments name.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATEGORY_EVIDENCE, SPECIES_CATEGORY_EVIDENCE, type CategoryEvidence } from '../../domain/images/categories.ts';
import { COCO_LABELS } from './coco-labels.ts';
import { resolveModelDir } from './model-files.ts';

const all: CategoryEvidence[] = [...Object.values(CATEGORY_EVIDENCE), ...Object.values(SPECIES_CATEGORY_EVIDENCE).flatMap((byName) => Object.values(byName))];
const classList = join(resolveModelDir(), 'classification/imagenet-classes.json');

describe('category evidence against the models’ classes', () => {
  it('names only COCO objects the detector reports', () => {
    for (const label of all.flatMap((e) => e.coco ?? [])) expect(COCO_LABELS, label).toContain(label);
  });

  it.runIf(existsSync(classList))('names the ImageNet classes it means', () => {
    const names = JSON.parse(readFileSync(classList, 'utf8')) as string[];
    for (const index of all.flatMap((e) => e.imagenet ?? [])) expect(names[index], String(index)).toBeDefined();
    const at = (index: number) => names[index];
    expect(at(515)).toMatch(/cowboy hat/);
    expect(at(837)).toMatch(/sunglasses/);
    expect(at(478)).toMatch(/carton/);
    expect(at(906)).toMatch(/Windsor tie/);
    expect(at(896)).toMatch(/washbasin/);
    expect(at(841)).toMatch(/sweatshirt/);
    expect(at(812)).toMatch(/space shuttle/);
    expect(at(904)).toMatch(/window screen/);
    expect(at(978)).toMatch(/seashore/);
    expect(at(852)).toMatch(/tennis ball/);
    expect(at(537)).toMatch(/dogsled/);
    expect(at(603)).toMatch(/horse cart/);
    expect(at(643)).toMatch(/^mask/);
  });
});
