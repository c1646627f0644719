"""experiments.bench.compare refuses a folder that is not a checkout (the measurement
itself is a benchmark, run by hand: python -m experiments.bench.compare OLD)."""
from __future__ import annotations

import pytest

from experiments.bench import compare


def test_a_folder_without_the_packages_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        compare.main([str(tmp_path)])
    assert e.value.code == 2
    assert "is not a checkout of this project" in capsys.readouterr().err
