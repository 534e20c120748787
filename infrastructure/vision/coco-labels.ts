/**
 * The COCO object classes by the detector's score column: SSDLite-MobileNetV2 (TensorFlow object
 * detection API, no background column) scores COCO category ids 1..90 in columns 0..89, and ten of
 * those ids name no class in the 2017 release (null here). Cat is column 16, dog 17, horse 18.
 */
export const COCO_LABELS: readonly (string | null)[] = [
  'person', 'bicycle', 'car', 'motorcycle', 'airplane', 'bus', 'train', 'truck', 'boat', 'traffic light',
  'fire hydrant', null, 'stop sign', 'parking meter', 'bench', 'bird', 'cat', 'dog', 'horse', 'sheep',
  'cow', 'elephant', 'bear', 'zebra', 'giraffe', null, 'backpack', 'umbrella', null, null,
  'handbag', 'tie', 'suitcase', 'frisbee', 'skis', 'snowboard', 'sports ball', 'kite', 'baseball bat', 'baseball glove',
  'skateboard', 'surfboard', 'tennis racket', 'bottle', null, 'wine glass', 'cup', 'fork', 'knife', 'spoon',
  'bowl', 'banana', 'apple', 'sandwich', 'orange', 'broccoli', 'carrot', 'hot dog', 'pizza', 'donut',
  'cake', 'chair', 'couch', 'potted plant', 'bed', null, 'dining table', null, null, 'toilet',
  null, 'tv', 'laptop', 'mouse', 'remote', 'keyboard', 'cell phone', 'microwave', 'oven', 'toaster',
  'sink', 'refrigerator', null, 'book', 'clock', 'vase', 'scissors', 'teddy bear', 'hair drier', 'toothbrush',
];
