import { climateOf, hemisphereOf, seasonOf, type ClimateBand, type Season } from './climate.ts';
import { lifeStage, sizeClassification } from './growth.ts';

/**
 * Care tips for one pet: the breed-standard tips seeded for its primary breed (read model
 * `care_tips`), blended with personalised tips from explicit rules over what is known of the
 * pet. Pure and deterministic: the same inputs give the same tips, and each personalised tip
 * names the rule and the facts that produced it (`reasons`). Nothing is invented for a fact the
 * pet's record lacks: a rule whose input is missing simply does not fire.
 */
export type CareTip = {
  id: string;
  category: string;
  title: string;
  description: string;
  tip_type: 'breed_standard' | 'personalised';
  sources?: string[];
  /** The rule and the facts that produced the tip. */
  reasons: string;
};

export type SeededTip = { id: string; category: string; title: string; description: string; sources: string[] };

export type CareTipInputs = {
  pet_id: string;
  species_id: string | null;
  breed: { id: string; name: string; weight_kg: { low: number; high: number } | null } | null;
  /** Age today: from the record when it has one, else the latest age estimate. */
  age_months: number | null;
  age_source: 'record' | 'estimate' | null;
  body_condition_score: number | null;
  muscle_wasting_risk: boolean | null;
  /** The latest weight estimate (the pet record carries no weighed weight). */
  weight_kg: number | null;
  country: string | null;
  /** Today, ISO date-time (season). */
  today: string;
};

export type CareTipOptions = { include_seeded: boolean; include_sources: boolean };

const SPECIES: Record<string, 'cat' | 'dog' | 'horse'> = { '1': 'cat', '2': 'dog', '3': 'horse' };

type Rule = { rule: string; category: string; title: string; description: string; reasons: string };

const lifeStageRule = (species: 'cat' | 'dog' | 'horse', stage: string, months: number, source: string): Rule | null => {
  const base = { rule: `life_stage_${stage}`, reasons: `life stage ${stage} at ${months} months (${source})` };
  switch (stage) {
    case 'puppy':
    case 'kitten':
      return {
        ...base,
        category: 'Nutrition',
        title: `Growth diet for a ${stage}`,
        description: `Feed a complete diet formulated for growth, split into three or four meals a day, and keep the vaccination and deworming schedule your vet gives for a ${species} this young.`,
      };
    case 'foal':
      return {
        ...base,
        category: 'Nutrition',
        title: 'Creep feed and handling for a foal',
        description: 'Offer creep feed alongside the mare’s milk, plan weaning around six months, and begin gentle handling, hoof trimming every six to eight weeks and the first vaccinations with your vet.',
      };
    case 'young_adult':
    case 'young':
      return {
        ...base,
        category: 'Exercise',
        title: 'Build routines while young',
        description: `A young ${species} has energy to spare: daily exercise and training or enrichment now set habits for life; move to an adult diet once growth has finished.`,
      };
    case 'adult':
      return {
        ...base,
        category: 'Preventive care',
        title: 'Yearly check-up',
        description: `An adult ${species} should see the vet once a year for an examination, dental check and boosters, with body condition checked at home every month.`,
      };
    case 'senior':
      return {
        ...base,
        category: 'Preventive care',
        title: 'Senior health checks',
        description: `Book vet checks every six months with blood and urine tests; a senior ${species} benefits from softer bedding, shorter and more frequent exercise, and watching for stiffness, weight change or drinking more.`,
      };
    default:
      return null;
  }
};

const bodyConditionRule = (bcs: number, species: string): Rule => {
  const reasons = `body condition score ${bcs}/9 (WSAVA; 4–5 is ideal)`;
  if (bcs <= 3)
    return {
      rule: 'bcs_underweight',
      reasons,
      category: 'Nutrition',
      title: 'Underweight: gain weight gradually',
      description: `Ribs and hip bones show at this score. Ask your vet to rule out illness and parasites, then increase food by about 10 % a week towards the ${species}'s target weight.`,
    };
  if (bcs <= 5)
    return {
      rule: 'bcs_ideal',
      reasons,
      category: 'Nutrition',
      title: 'Ideal body condition: keep portions steady',
      description: 'Keep weighing the daily ration and adjust treats so they stay under a tenth of the calories; check the waist and ribs monthly.',
    };
  if (bcs <= 7)
    return {
      rule: 'bcs_overweight',
      reasons,
      category: 'Weight management',
      title: 'Overweight: trim calories and add activity',
      description: 'Reduce the daily ration by 10–20 % of the current amount, weigh food rather than scooping it, replace treats with play, and recheck the body condition in four weeks.',
    };
  return {
    rule: 'bcs_obese',
    reasons,
    category: 'Weight management',
    title: 'Obese: a vet-supervised weight-loss plan',
    description: 'At this score joints, heart and metabolism are at risk: ask your vet for a weight-loss plan with a measured calorie target and monthly weigh-ins, aiming at 1–2 % of body weight a week.',
  };
};

const seasonRule = (species: 'cat' | 'dog' | 'horse', season: Season, where: string): Rule => {
  const base = { rule: `season_${season}`, reasons: `${season} in ${where}` };
  switch (season) {
    case 'summer':
      return {
        ...base,
        category: 'Seasonal',
        title: 'Summer heat',
        description:
          species === 'horse'
            ? 'Provide shade and plenty of fresh water with electrolytes after work, ride in the cool of the day, and use fly protection.'
            : `Walk or play in the cool hours, test pavements with the back of your hand, never leave a ${species} in a parked car, and keep fresh water within reach.`,
      };
    case 'winter':
      return {
        ...base,
        category: 'Seasonal',
        title: 'Winter cold',
        description:
          species === 'horse'
            ? 'Check water troughs for ice twice a day, add forage to keep the horse warm, and rug clipped or older horses.'
            : `Dry and check paws after walks (grit and salt burn), keep antifreeze out of reach, and give a ${species} a warm draught-free bed.`,
      };
    case 'spring':
      return {
        ...base,
        category: 'Seasonal',
        title: 'Spring parasites and growth',
        description:
          species === 'horse'
            ? 'Introduce spring grass gradually (laminitis risk), and plan worm egg counts and vaccinations.'
            : 'Ticks and fleas return: restart parasite prevention, check the coat after walks, and keep spring bulbs and fertiliser out of reach.',
      };
    case 'autumn':
      return {
        ...base,
        category: 'Seasonal',
        title: 'Autumn moult and shorter days',
        description:
          species === 'horse'
            ? 'Watch for sycamore seedlings and acorns in the field, check the winter coat and plan rugs, and keep grazing managed as grass growth slows.'
            : 'Brush more often through the moult, use reflective gear on darker walks, and keep fallen acorns, conkers and mushrooms away.',
      };
  }
};

const climateRule = (climate: Exclude<ClimateBand, 'temperate'>, country: string, species: string): Rule => {
  const base = { rule: `climate_${climate}`, reasons: `${country} is classed ${climate}` };
  switch (climate) {
    case 'tropical':
      return {
        ...base,
        category: 'Climate',
        title: 'Tropical climate: parasites all year',
        description: `Keep flea, tick and heartworm prevention going every month of the year, and watch a ${species} for heat stress in humid weather.`,
      };
    case 'arid':
      return {
        ...base,
        category: 'Climate',
        title: 'Hot, dry climate: water and shade',
        description: `Keep water in the shade and change it often, avoid exercise at midday, and watch for dry skin and sand in the eyes of a ${species}.`,
      };
    case 'cold':
      return {
        ...base,
        category: 'Climate',
        title: 'Cold climate: long winters',
        description: `Give a ${species} more food energy through the cold months if it lives or works outdoors, protect paws or hooves from ice, and keep a sheltered warm sleeping place.`,
      };
  }
};

/**
 * The personalised tips, in a fixed order: life stage, body condition, muscle, weight, season, climate.
 * Each fires only when its input is known.
 */
export const personalisedTips = (inputs: CareTipInputs): CareTip[] => {
  const species = inputs.species_id ? SPECIES[inputs.species_id] : undefined;
  const speciesName = species ?? 'pet';
  const rules: Rule[] = [];
  if (species && inputs.age_months !== null) {
    const size = inputs.breed?.weight_kg ? sizeClassification(inputs.species_id!, (inputs.breed.weight_kg.low + inputs.breed.weight_kg.high) / 2) : 'medium';
    const stage = lifeStage(inputs.species_id!, inputs.age_months, size);
    const rule = lifeStageRule(species, stage, Math.round(inputs.age_months), inputs.age_source === 'record' ? "from the pet's record" : 'from the age estimate');
    if (rule) rules.push(rule);
  }
  if (inputs.body_condition_score !== null) rules.push(bodyConditionRule(inputs.body_condition_score, speciesName));
  if (inputs.muscle_wasting_risk === true)
    rules.push({
      rule: 'muscle_wasting_risk',
      reasons: 'the muscle condition analysis flagged a wasting risk',
      category: 'Exercise',
      title: 'Rebuild muscle',
      description: 'Muscle loss over the spine and hips was flagged: ask your vet to check for pain or illness, feed enough high-quality protein, and add short, regular low-impact exercise such as lead walks or swimming.',
    });
  if (inputs.weight_kg !== null && inputs.breed?.weight_kg) {
    const { low, high } = inputs.breed.weight_kg;
    const stage = species && inputs.age_months !== null ? lifeStage(inputs.species_id!, inputs.age_months) : null;
    const growing = stage === 'puppy' || stage === 'kitten' || stage === 'foal';
    if (!growing && inputs.weight_kg > high * 1.1)
      rules.push({
        rule: 'weight_above_breed_range',
        reasons: `weight estimate ${inputs.weight_kg} kg is above the ${inputs.breed.name} standard ${low}–${high} kg`,
        category: 'Weight management',
        title: `Above the ${inputs.breed.name} weight range`,
        description: `Aim for ${high} kg or less: weigh every two weeks and feed for the target weight, not the current one.`,
      });
    else if (!growing && inputs.weight_kg < low * 0.9)
      rules.push({
        rule: 'weight_below_breed_range',
        reasons: `weight estimate ${inputs.weight_kg} kg is below the ${inputs.breed.name} standard ${low}–${high} kg`,
        category: 'Nutrition',
        title: `Below the ${inputs.breed.name} weight range`,
        description: `Aim for at least ${low} kg: check with your vet that nothing stops the pet gaining, then feed for the target weight.`,
      });
  }
  const hemisphere = hemisphereOf(inputs.country);
  const climate = climateOf(inputs.country);
  if (species && hemisphere && inputs.country && climate !== 'tropical') {
    const month = new Date(inputs.today).getUTCMonth() + 1;
    rules.push(seasonRule(species, seasonOf(month, hemisphere), `${inputs.country} (${hemisphere}ern hemisphere, month ${month})`));
  }
  if (climate && climate !== 'temperate' && inputs.country) rules.push(climateRule(climate, inputs.country, speciesName));
  return rules.map(({ rule, ...tip }) => ({ id: `${inputs.pet_id}-${rule}`, ...tip, tip_type: 'personalised' as const, sources: [] }));
};

/** The result items: breed-standard tips first (unless excluded), then the personalised ones; `sources` only when asked for. */
export const careTips = (inputs: CareTipInputs, seeded: readonly SeededTip[], options: CareTipOptions): CareTip[] => {
  const breedTips: CareTip[] = options.include_seeded
    ? seeded.map((tip) => ({ ...tip, tip_type: 'breed_standard' as const, reasons: `breed standard for ${inputs.breed?.name ?? 'the breed'}` }))
    : [];
  const all = [...breedTips, ...personalisedTips(inputs)];
  return all.map(({ sources, ...tip }) => (options.include_sources ? { ...tip, sources: sources ?? [] } : tip));
};
