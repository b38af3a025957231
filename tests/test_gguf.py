"""GGUF headers and the memory check that runs before llama.cpp allocates a context."""

import pytest

from localsumm.errors import ConfigError, ModelError, ResourceError
from localsumm.models import gguf
from localsumm.models.registry import get_spec

from .conftest import EXAMPLE, run_cli


@pytest.fixture(scope="module")
def small_path():
    return get_spec("smollm2-135m").path


def test_metadata_of_a_real_gguf(small_path):
    meta = gguf.read_metadata(small_path)
    assert meta["general.architecture"] == "llama"
    assert int(meta["llama.context_length"]) == 8192
    # 30 layers x 3 KV heads x (64 + 64) dimensions x 2 bytes
    assert gguf.kv_bytes_per_token(meta) == 30 * 3 * 128 * 2


def test_a_file_that_is_not_gguf_or_is_cut_short_is_a_model_error(tmp_path, small_path):
    (tmp_path / "text.gguf").write_text("hello")
    with pytest.raises(ModelError, match="not a GGUF file"):
        gguf.read_metadata(tmp_path / "text.gguf")
    (tmp_path / "cut.gguf").write_bytes(small_path.read_bytes()[:4096])
    with pytest.raises(ModelError, match="truncated or corrupt"):
        gguf.read_metadata(tmp_path / "cut.gguf")


def test_a_context_the_machine_cannot_hold_is_refused_with_both_sizes(small_path):
    with pytest.raises(
        ResourceError, match=r"8,192-token context .* needs about [0-9.]+ GiB .* but 0.1 GiB is available"
    ):
        gguf.check_context(small_path, 8192, available=100 * 2**20)
    gguf.check_context(small_path, 8192, available=64 * 2**30)  # fits: no error


def test_a_context_beyond_the_models_training_is_refused(small_path):
    with pytest.raises(ConfigError, match="trained for \\(8,192 tokens\\)"):
        gguf.check_context(small_path, 100_000, available=64 * 2**30)


def test_the_llamacpp_judge_checks_before_allocating(small_path, monkeypatch):
    from localsumm.backends.llamacpp import LlamaCppJudge

    monkeypatch.setattr(gguf, "available_memory", lambda: 200 * 2**20)
    with pytest.raises(ResourceError, match="available"):
        LlamaCppJudge(small_path, n_ctx=2048)


def test_the_cli_names_the_problem_and_exits_with_its_code():
    done = run_cli(
        "score",
        *EXAMPLE,
        "--model",
        "smollm2-135m",
        "--n-ctx",
        "100000",
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "trained for" in done.stderr
