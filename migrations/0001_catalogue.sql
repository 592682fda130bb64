-- 0001: the catalogue, so that a kept working database explains itself to someone who opens it
-- with sqlite3: what run produced it, which attributes it holds, and how to turn the integer codes
-- of the data tables back into values and generalizations.
--
-- A database holds one run. The data tables (AnonRecordTable, QidTuple, EquivalenceTable and
-- the views over them) have one column per attribute, so their definitions are generated for
-- each run from `Attribute` (src/store/schema.rs) rather than written here; this file holds
-- everything whose shape does not depend on the job. Migrations are append-only: change the
-- schema with a new file, never by editing this one.

-- The run that wrote this database.
CREATE TABLE Run (
    RunID          INTEGER PRIMARY KEY,
    AnonboxVersion TEXT    NOT NULL,
    Method         TEXT    NOT NULL,
    -- JSON: k, l, c, t, suppression, metric, privacy models, seed.
    Parameters     TEXT    NOT NULL,
    ConfigPath     TEXT,
    -- The configuration file's text, verbatim.
    ConfigText     TEXT,
    InputPath      TEXT    NOT NULL,
    Separator      TEXT    NOT NULL,
    Header         INTEGER NOT NULL,
    OutputPath     TEXT,
    OutputFormat   TEXT,
    StartedAt      TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    -- Filled as the run progresses.
    RowsRead       INTEGER,
    RowsSkipped    INTEGER,
    BlankLines     INTEGER,
    Records        INTEGER,
    FinishedAt     TEXT,
    -- JSON: the run's report (the same document as -report).
    Report         TEXT
);

-- Quasi-identifiers (Role 'qid', in <qid> order) and sensitive attributes (Role 'sensitive').
-- ColumnName is the attribute's column in the data tables (ATT_<input index>, as the toolbox).
CREATE TABLE Attribute (
    AttributeID   INTEGER PRIMARY KEY,          -- 0.. : quasi-identifiers, then sensitive
    InputIndex    INTEGER NOT NULL UNIQUE,      -- 0-based column of the input
    Name          TEXT    NOT NULL,             -- header name, or att<index>
    Role          TEXT    NOT NULL CHECK (Role IN ('qid', 'sensitive')),
    -- 'vgh' (UT Dallas interval tree), 'hierarchy' (hierarchy file), 'map' (categories),
    -- 'number'.
    Source        TEXT    NOT NULL CHECK (Source IN ('vgh', 'hierarchy', 'map', 'number')),
    HierarchyFile TEXT,
    Levels        INTEGER,                      -- quasi-identifiers: levels including level 0
    Suppressed    TEXT,                         -- what a suppressed record prints
    ColumnName    TEXT    NOT NULL UNIQUE
);

-- Dictionary codes: the value behind each code of a data-table column. Quasi-identifiers with a
-- VGH hold the toolbox's point labels ('[73.0]'), numbers Java's form ('73.0').
CREATE TABLE Dictionary (
    AttributeID INTEGER NOT NULL REFERENCES Attribute (AttributeID),
    Code        INTEGER NOT NULL,
    Value       TEXT    NOT NULL,
    PRIMARY KEY (AttributeID, Code)
) WITHOUT ROWID;

-- Generalization hierarchies, ARX style: leaf code -> id of its generalization at each level
-- (level 0 ids are the codes) ...
CREATE TABLE HierarchyMap (
    AttributeID INTEGER NOT NULL REFERENCES Attribute (AttributeID),
    Level       INTEGER NOT NULL,
    Code        INTEGER NOT NULL,
    Id          INTEGER NOT NULL,
    PRIMARY KEY (AttributeID, Level, Code)
) WITHOUT ROWID;

-- ... and the printed label of each id at each level.
CREATE TABLE HierarchyLabel (
    AttributeID INTEGER NOT NULL REFERENCES Attribute (AttributeID),
    Level       INTEGER NOT NULL,
    Id          INTEGER NOT NULL,
    Label       TEXT    NOT NULL,
    PRIMARY KEY (AttributeID, Level, Id)
) WITHOUT ROWID;

-- Every leaf with its label at every level, by attribute name.
CREATE VIEW HierarchyView AS
SELECT a.Name AS Attribute, m.Code, d.Value, m.Level, l.Label
FROM HierarchyMap m
JOIN Attribute a ON a.AttributeID = m.AttributeID
JOIN Dictionary d ON d.AttributeID = m.AttributeID AND d.Code = m.Code
JOIN HierarchyLabel l ON l.AttributeID = m.AttributeID AND l.Level = m.Level AND l.Id = m.Id;
