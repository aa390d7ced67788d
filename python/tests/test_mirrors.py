# SPDX-License-Identifier: Apache-2.0
"""The layers agree with the C API: every enum value of include/ipt/ipt.h has its Python
and Fortran mirror with the same value and no other, and every status its own string."""

import pathlib
import re

import ipt
from ipt import _host, _plan

ROOT = pathlib.Path(__file__).resolve().parents[2]


def c_enums():
    """{enum name: {constant: value}} of ipt.h's typedef'd enums."""
    text = (ROOT / "include" / "ipt" / "ipt.h").read_text()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    enums = {}
    for body, name in re.findall(r"typedef enum \w+ \{(.*?)\} (\w+);", text, flags=re.S):
        enums[name] = {constant: int(value) for constant, value in
                       re.findall(r"(IPT_\w+)\s*=\s*(-?\d+)", body)}
    return enums


def test_the_header_is_parsed():
    enums = c_enums()
    assert set(enums) >= {"ipt_status", "ipt_sequence", "ipt_padding", "ipt_scalar_type",
                          "ipt_host_scheme", "ipt_host_pinning"}
    assert enums["ipt_status"]["IPT_SUCCESS"] == 0
    assert enums["ipt_status"]["IPT_INTERNAL_ERROR"] == -1999


def test_python_statuses_mirror_the_c_enum():
    c = {name[len("IPT_"):]: value for name, value in c_enums()["ipt_status"].items()}
    assert {status.name: status.value for status in ipt.Status} == c


def test_every_status_has_its_own_string():
    strings = {}
    for name, value in c_enums()["ipt_status"].items():
        text = ipt._lib.ipt_status_string(value).decode()
        assert text.startswith(name + ": "), text
        strings[text] = name
    assert len(strings) == len(c_enums()["ipt_status"])


def test_python_option_names_mirror_the_c_enums():
    enums = c_enums()
    sequences = {value: ipt._lib.ipt_sequence_name(value).decode()
                 for value in enums["ipt_sequence"].values()}
    assert {value: name for name, value in _plan.SEQUENCES.items()} == sequences
    assert sorted(_plan._PADDINGS.values()) == sorted(enums["ipt_padding"].values())
    assert _host.SCHEMES == {name[len("IPT_HOST_"):].lower(): value
                             for name, value in enums["ipt_host_scheme"].items()}
    assert _host.PINNING == {name[len("IPT_HOST_PIN_"):].lower(): value
                             for name, value in enums["ipt_host_pinning"].items()}


def test_fortran_constants_mirror_the_c_enums():
    text = (ROOT / "fortran" / "ipt.f90").read_text()
    fortran = {name: int(value) for name, value in re.findall(
        r"integer\(c_int\), parameter, public :: (IPT_\w+) = (-?\d+)", text)}
    mirrored = {}
    for name in ("ipt_status", "ipt_sequence", "ipt_padding", "ipt_host_scheme",
                 "ipt_host_pinning"):
        mirrored.update(c_enums()[name])
    assert fortran == mirrored


def test_the_version_is_the_headers():
    text = (ROOT / "include" / "ipt" / "ipt.h").read_text()
    parts = [re.search(r"#define IPT_VERSION_%s (\d+)" % part, text).group(1)
             for part in ("MAJOR", "MINOR", "PATCH")]
    assert ipt.__version__ == ".".join(parts)
