/**
 * ImageNet classes (EfficientNet-Lite0's 1,000 outputs) to our species and breeds.
 *
 * Species ids are the service's: '1' cat, '2' dog, '3' horse. The domestic cat classes are
 * 281–285 (tabby, tiger cat, Persian, Siamese, Egyptian cat), the dog breeds 151–268, and 339
 * (sorrel) is ImageNet's only horse. Wild relatives (wolves, foxes, big cats) map to no species.
 *
 * BREEDS maps each dog or cat class to the ImageNet breed name and, where one matches, the id of
 * the breed in reference-data/breeds (checked by imagenet-species.unit.spec.ts). Classes that are a
 * coat pattern (tabby, tiger cat) or a breed we do not list (kelpie, Appenzeller, ...) have no id.
 * Judgement calls: Blenheim spaniel → Cavalier King Charles Spaniel, groenendael → Belgian
 * Sheepdog, cocker spaniel → English Cocker Spaniel (ImageNet's synset), Egyptian cat → Egyptian
 * Mau, the three poodle sizes → Poodle, Mexican hairless (a dog class) → Xoloitzcuintli.
 */
export type SpeciesId = '1' | '2' | '3';

export const CAT_CLASSES = { first: 281, last: 285 } as const;
export const DOG_CLASSES = { first: 151, last: 268 } as const;
export const HORSE_CLASS = 339;

/** The species an ImageNet class stands for, or null when it is not a cat, dog or horse. */
export function imagenetSpecies(index: number): SpeciesId | null {
  if (index >= CAT_CLASSES.first && index <= CAT_CLASSES.last) return '1';
  if (index >= DOG_CLASSES.first && index <= DOG_CLASSES.last) return '2';
  if (index === HORSE_CLASS) return '3';
  return null;
}

export type ImagenetBreed = { index: number; species: SpeciesId; breedName: string; breedId: string | null };

/** [ImageNet index, ImageNet breed name, our breed id or null] */
const TABLE: [number, string, string | null][] = [
  [151, "Chihuahua", "chihuahua"],
  [152, "Japanese spaniel", "japanese-chin"],
  [153, "Maltese dog", "maltese"],
  [154, "Pekinese", "pekingese"],
  [155, "Shih-Tzu", "shih-tzu"],
  [156, "Blenheim spaniel", "cavalier-king-charles-spaniel"],
  [157, "papillon", "papillon"],
  [158, "toy terrier", null],
  [159, "Rhodesian ridgeback", "rhodesian-ridgeback"],
  [160, "Afghan hound", "afghan-hound"],
  [161, "basset", "basset-hound"],
  [162, "beagle", "beagle"],
  [163, "bloodhound", "bloodhound"],
  [164, "bluetick", "bluetick-coonhound"],
  [165, "black-and-tan coonhound", "black-and-tan-coonhound"],
  [166, "Walker hound", "treeing-walker-coonhound"],
  [167, "English foxhound", "english-foxhound"],
  [168, "redbone", "redbone-coonhound"],
  [169, "borzoi", "borzoi"],
  [170, "Irish wolfhound", "irish-wolfhound"],
  [171, "Italian greyhound", "italian-greyhound"],
  [172, "whippet", "whippet"],
  [173, "Ibizan hound", "ibizan-hound"],
  [174, "Norwegian elkhound", "norwegian-elkhound"],
  [175, "otterhound", "otterhound"],
  [176, "Saluki", "saluki"],
  [177, "Scottish deerhound", "scottish-deerhound"],
  [178, "Weimaraner", "weimaraner"],
  [179, "Staffordshire bullterrier", "staffordshire-bull-terrier"],
  [180, "American Staffordshire terrier", "american-staffordshire-terrier"],
  [181, "Bedlington terrier", "bedlington-terrier"],
  [182, "Border terrier", "border-terrier"],
  [183, "Kerry blue terrier", "kerry-blue-terrier"],
  [184, "Irish terrier", "irish-terrier"],
  [185, "Norfolk terrier", "norfolk-terrier"],
  [186, "Norwich terrier", "norwich-terrier"],
  [187, "Yorkshire terrier", "yorkshire-terrier"],
  [188, "wire-haired fox terrier", "wire-fox-terrier"],
  [189, "Lakeland terrier", "lakeland-terrier"],
  [190, "Sealyham terrier", "sealyham-terrier"],
  [191, "Airedale", "airedale-terrier"],
  [192, "cairn", "cairn-terrier"],
  [193, "Australian terrier", "australian-terrier"],
  [194, "Dandie Dinmont", "dandie-dinmont-terrier"],
  [195, "Boston bull", "boston-terrier"],
  [196, "miniature schnauzer", "miniature-schnauzer"],
  [197, "giant schnauzer", "giant-schnauzer"],
  [198, "standard schnauzer", "standard-schnauzer"],
  [199, "Scotch terrier", "scottish-terrier"],
  [200, "Tibetan terrier", "tibetan-terrier"],
  [201, "silky terrier", "silky-terrier"],
  [202, "soft-coated wheaten terrier", "soft-coated-wheaten-terrier"],
  [203, "West Highland white terrier", "west-highland-white-terrier"],
  [204, "Lhasa", "lhasa-apso"],
  [205, "flat-coated retriever", "flat-coated-retriever"],
  [206, "curly-coated retriever", "curly-coated-retriever"],
  [207, "golden retriever", "golden-retriever"],
  [208, "Labrador retriever", "labrador-retriever"],
  [209, "Chesapeake Bay retriever", "chesapeake-bay-retriever"],
  [210, "German short-haired pointer", "german-shorthaired-pointer"],
  [211, "vizsla", "vizsla"],
  [212, "English setter", "english-setter"],
  [213, "Irish setter", "irish-setter"],
  [214, "Gordon setter", "gordon-setter"],
  [215, "Brittany spaniel", "brittany"],
  [216, "clumber", "clumber-spaniel"],
  [217, "English springer", "english-springer-spaniel"],
  [218, "Welsh springer spaniel", "welsh-springer-spaniel"],
  [219, "cocker spaniel", "english-cocker-spaniel"],
  [220, "Sussex spaniel", "sussex-spaniel"],
  [221, "Irish water spaniel", "irish-water-spaniel"],
  [222, "kuvasz", "kuvasz"],
  [223, "schipperke", "schipperke"],
  [224, "groenendael", "belgian-sheepdog"],
  [225, "malinois", "belgian-malinois"],
  [226, "briard", "briard"],
  [227, "kelpie", null],
  [228, "komondor", "komondor"],
  [229, "Old English sheepdog", "old-english-sheepdog"],
  [230, "Shetland sheepdog", "shetland-sheepdog"],
  [231, "collie", "collie"],
  [232, "Border collie", "border-collie"],
  [233, "Bouvier des Flandres", "bouvier-des-flandres"],
  [234, "Rottweiler", "rottweiler"],
  [235, "German shepherd", "german-shepherd-dog"],
  [236, "Doberman", "doberman-pinscher"],
  [237, "miniature pinscher", "miniature-pinscher"],
  [238, "Greater Swiss Mountain dog", "greater-swiss-mountain-dog"],
  [239, "Bernese mountain dog", "bernese-mountain-dog"],
  [240, "Appenzeller", null],
  [241, "EntleBucher", "entlebucher-mountain-dog"],
  [242, "boxer", "boxer"],
  [243, "bull mastiff", "bullmastiff"],
  [244, "Tibetan mastiff", "tibetan-mastiff"],
  [245, "French bulldog", "french-bulldog"],
  [246, "Great Dane", "great-dane"],
  [247, "Saint Bernard", "saint-bernard"],
  [248, "Eskimo dog", null],
  [249, "malamute", "alaskan-malamute"],
  [250, "Siberian husky", "siberian-husky"],
  [251, "dalmatian", "dalmatian"],
  [252, "affenpinscher", "affenpinscher"],
  [253, "basenji", "basenji"],
  [254, "pug", "pug"],
  [255, "Leonberg", "leonberger"],
  [256, "Newfoundland", "newfoundland"],
  [257, "Great Pyrenees", "great-pyrenees"],
  [258, "Samoyed", "samoyed"],
  [259, "Pomeranian", "pomeranian"],
  [260, "chow", "chow-chow"],
  [261, "keeshond", "keeshond"],
  [262, "Brabancon griffon", "brussels-griffon"],
  [263, "Pembroke", "pembroke-welsh-corgi"],
  [264, "Cardigan", "cardigan-welsh-corgi"],
  [265, "toy poodle", "poodle"],
  [266, "miniature poodle", "poodle"],
  [267, "standard poodle", "poodle"],
  [268, "Mexican hairless", "xoloitzcuintli"],
  [281, "tabby", null],
  [282, "tiger cat", null],
  [283, "Persian cat", "pers"],
  [284, "Siamese cat", "siam"],
  [285, "Egyptian cat", "emau"],];

export const IMAGENET_BREEDS: ReadonlyMap<number, ImagenetBreed> = new Map(
  TABLE.map(([index, breedName, breedId]) => [index, { index, species: imagenetSpecies(index) as SpeciesId, breedName, breedId }]),
);

/** The dog or cat breed an ImageNet class names, or null for any other class. */
export function imagenetBreed(index: number): ImagenetBreed | null {
  return IMAGENET_BREEDS.get(index) ?? null;
}
