"""Zip archives of named parts, as project files are written: each part deflated once and kept
so (a save writes what it packed before, in milliseconds), and read back with every size checked
before anything is decompressed.

`pack([("a.json", Part(b"{}"))])` -> the bytes of a zip archive any unzip reads. No project
knowledge here (see `engine.project.project_file`).
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from typing import Final

from engine.errors import ProjectFileError

LEVEL: Final = 6
# Refused before anything is decompressed: a member that says it expands past this, or an
# archive with more members than a project can have.
MAX_MEMBER_BYTES: Final = 1 << 30
MAX_MEMBERS: Final = 100_000
ZIP_MAGIC: Final = b"PK\x03\x04"
# Every member's date: 2020-01-01 00:00 (the same archive for the same project, whenever saved).
DOS_DATE: Final = ((2020 - 1980) << 9) | (1 << 5) | 1
DOS_TIME: Final = 0
# Past these, the archive needs ZIP64: written by zipfile instead.
ZIP32_LIMIT: Final = 0xFFFFFFFF
UTF8_NAMES: Final = 0x800


class Packed:
    """A part's bytes deflated as a zip stores them (raw deflate), with their CRC-32 and size."""

    crc: int
    size: int
    data: bytes

    def __init__(self, crc: int, size: int, data: bytes) -> None:
        self.crc = crc
        self.size = size
        self.data = data


class Part:
    """One member's content, and once packed the same bytes deflated (kept: the next save
    writes them as they are). Never changed once made."""

    content: bytes
    packed: Packed | None

    def __init__(self, content: bytes, packed: Packed | None = None) -> None:
        self.content = content
        self.packed = packed

    def pack(self) -> Packed:
        """The content deflated (made once; zlib works without Python's lock)."""
        packed = self.packed
        if packed is None:
            compressor = zlib.compressobj(LEVEL, zlib.DEFLATED, -15)
            data = compressor.compress(self.content) + compressor.flush()
            packed = Packed(zlib.crc32(self.content), len(self.content), data)
            self.packed = packed
        return packed

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return (Part, (self.content,))


def pack(members: list[tuple[str, Part]]) -> bytes:
    """A zip archive of `members`, each deflated (once: see `Part.pack`)."""
    packed = [(name, part.pack()) for name, part in members]
    total = 0
    for _, item in packed:
        total += len(item.data) + 128
    if total >= ZIP32_LIMIT:
        return _pack_zip64(members)
    out = io.BytesIO()
    directory: list[bytes] = []
    for name, item in packed:
        encoded = name.encode("utf-8")
        flags = 0 if name.isascii() else UTF8_NAMES
        offset = out.tell()
        out.write(
            struct.pack(
                "<IHHHHHIIIHH", 0x04034B50, 20, flags, 8, DOS_TIME, DOS_DATE, item.crc, len(item.data), item.size, len(encoded), 0
            )
        )
        out.write(encoded)
        out.write(item.data)
        directory.append(
            struct.pack(
                "<IHHHHHHIIIHHHHHII",
                0x02014B50, 20, 20, flags, 8, DOS_TIME, DOS_DATE, item.crc, len(item.data), item.size,
                len(encoded), 0, 0, 0, 0, 0, offset,
            )  # fmt: skip
            + encoded
        )
    start = out.tell()
    for entry in directory:
        out.write(entry)
    size = out.tell() - start
    out.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(directory), len(directory), size, start, 0))
    return out.getvalue()


def _pack_zip64(members: list[tuple[str, Part]]) -> bytes:
    """`pack` for an archive past 4 GB (zipfile writes ZIP64; every part is deflated again)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=LEVEL, allowZip64=True) as archive:
        for name, part in members:
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, part.content)
    return buffer.getvalue()


def unpack(data: bytes, path: str) -> dict[str, Part]:
    """Every member of an archive, its content and its bytes as stored (so that saving it again
    packs nothing); ProjectFileError naming `path` for an archive that is damaged, truncated, or
    declares more than a project can hold (checked before decompressing)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            infos = archive.infolist()
            if len(infos) > MAX_MEMBERS:
                raise ProjectFileError(path, f"holds {len(infos):,} members (a project has at most {MAX_MEMBERS:,})")
            members: dict[str, Part] = {}
            for info in infos:
                if info.file_size > MAX_MEMBER_BYTES:
                    raise ProjectFileError(
                        path, f"member {info.filename} declares {info.file_size:,} bytes (at most {MAX_MEMBER_BYTES:,})"
                    )
                with archive.open(info) as stream:
                    content = stream.read(MAX_MEMBER_BYTES + 1)
                if len(content) > MAX_MEMBER_BYTES:
                    raise ProjectFileError(path, f"member {info.filename} expands past {MAX_MEMBER_BYTES:,} bytes")
                members[info.filename] = Part(content, _stored(data, info))
    except zipfile.BadZipFile as error:
        raise ProjectFileError(path, f"is a damaged or truncated project archive ({error})") from None
    except (zipfile.LargeZipFile, NotImplementedError, EOFError, OSError, ValueError) as error:
        raise ProjectFileError(path, f"is a damaged project archive ({error})") from None
    return members


def _stored(data: bytes, info: zipfile.ZipInfo) -> Packed | None:
    """A member's deflated bytes as the archive holds them (None when not plainly deflated)."""
    if info.compress_type != zipfile.ZIP_DEFLATED or info.flag_bits & 0x1:
        return None
    start = info.header_offset
    if start + 30 > len(data) or data[start : start + 4] != ZIP_MAGIC:
        return None
    name_length, extra_length = struct.unpack("<HH", data[start + 26 : start + 30])
    begin = start + 30 + name_length + extra_length
    end = begin + info.compress_size
    if end > len(data):
        return None
    return Packed(info.CRC, info.file_size, data[begin:end])
