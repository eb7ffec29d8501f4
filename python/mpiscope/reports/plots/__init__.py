"""The figures of result documents: :mod:`.data` lists them and turns
documents into :mod:`.figure` objects (plain data, one module per figure:
:mod:`.time`, :mod:`.bandwidth`, :mod:`.unsized`, :mod:`.per_rank`,
:mod:`.skew`, :mod:`.methods`, :mod:`.runs`, sharing :mod:`.common`);
:mod:`.render` draws them with matplotlib."""
