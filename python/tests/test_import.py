"""`import chunktui` needs none of the frameworks: with LangChain, LlamaIndex
and Ray made unimportable, the package still imports and chunks, and an
adapter imported without its framework says what to install."""

from __future__ import annotations

import subprocess
import sys

# A finder that refuses the frameworks, as if they were not installed.
BLOCK = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"langchain_core", "langchain_text_splitters", "llama_index", "ray"}:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, Block())
"""


def run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", BLOCK + code], capture_output=True, text=True)


def test_import_chunktui_needs_no_framework() -> None:
    done = run(
        "import chunktui\n"
        "print(len(chunktui.Chunker(size=10, overlap=0).chunk('one two three. four five six.')))\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in {'langchain_core', 'llama_index', 'ray'}))\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[1] == "[]"


def test_an_adapter_without_its_framework_says_what_to_install() -> None:
    for module, install in [
        ("langchain", "pip install langchain-text-splitters"),
        ("llama_index", "pip install llama-index-core"),
        ("ray", "pip install 'ray[data]'"),
    ]:
        done = run(f"import chunktui.{module}")
        assert done.returncode != 0, module
        assert f"chunktui.{module} needs" in done.stderr and install in done.stderr, done.stderr
