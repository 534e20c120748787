import type { SafetyVerdict } from './port.ts';

/**
 * open_nsfw gives one probability that an image is "not safe for work" (pornographic or nude
 * content). Its authors read scores below 0.2 as safe and above 0.8 as NSFW; between the two an
 * image is uncertain. The service marks an image unsafe at `nsfw >= threshold` (default 0.8, the
 * authors' upper band: a pet photo wrongly refused costs a user more than a borderline one kept for
 * review) and reports a moderation label from 0.2 up so that borderline images stay visible.
 */
export const DEFAULT_SAFETY_THRESHOLD = 0.8;
export const REVIEW_FLOOR = 0.2;

const percent = (p: number) => Math.round(p * 10_000) / 100;

export function safetyVerdict(scores: { sfw: number; nsfw: number }, threshold = DEFAULT_SAFETY_THRESHOLD): SafetyVerdict {
  const { nsfw } = scores;
  const unsafe = nsfw >= threshold;
  const labels: SafetyVerdict['labels'] = [];
  const reasons: string[] = [];
  if (unsafe) {
    labels.push({ Name: 'Explicit Nudity', Confidence: percent(nsfw), ParentName: '' });
    reasons.push(`nudity or sexual content likely (open_nsfw score ${nsfw.toFixed(3)} >= ${threshold})`);
  } else if (nsfw >= REVIEW_FLOOR) {
    labels.push({ Name: 'Suggestive', Confidence: percent(nsfw), ParentName: '' });
  }
  return { unsafe, scores: { sfw: scores.sfw, nsfw }, reasons, labels, threshold };
}
