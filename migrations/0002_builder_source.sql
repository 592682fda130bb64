-- Hierarchies built at load time by a config's builder (<intervals/>, <mask/>, <dates/>,
-- <categories/>): Attribute.Source gains 'builder', with HierarchyFile holding the builder's
-- description (e.g. 'intervals widths=5,10,20 start=0'); the built hierarchy itself is in
-- HierarchyMap and HierarchyLabel like any other. SQLite cannot change a CHECK constraint in
-- place, so the table is rebuilt (the run-time views over it are dropped by the store before
-- every load and HierarchyView is recreated here).
DROP VIEW IF EXISTS RecordView;
DROP VIEW IF EXISTS AnonymizedView;
DROP VIEW HierarchyView;

CREATE TABLE Attribute_new (
    AttributeID   INTEGER PRIMARY KEY,          -- 0.. : quasi-identifiers, then sensitive
    InputIndex    INTEGER NOT NULL UNIQUE,      -- 0-based column of the input
    Name          TEXT    NOT NULL,             -- header name, or att<index>
    Role          TEXT    NOT NULL CHECK (Role IN ('qid', 'sensitive')),
    -- 'vgh' (UT Dallas interval tree), 'hierarchy' (hierarchy file), 'builder' (built at load
    -- time; HierarchyFile is the builder's description), 'map' (categories), 'number'.
    Source        TEXT    NOT NULL
                  CHECK (Source IN ('vgh', 'hierarchy', 'builder', 'map', 'number')),
    HierarchyFile TEXT,
    Levels        INTEGER,                      -- quasi-identifiers: levels including level 0
    Suppressed    TEXT,                         -- what a suppressed record prints
    ColumnName    TEXT    NOT NULL UNIQUE
);
INSERT INTO Attribute_new SELECT * FROM Attribute;
DROP TABLE Attribute;
ALTER TABLE Attribute_new RENAME TO Attribute;

-- Every leaf with its label at every level, by attribute name.
CREATE VIEW HierarchyView AS
SELECT a.Name AS Attribute, m.Code, d.Value, m.Level, l.Label
FROM HierarchyMap m
JOIN Attribute a ON a.AttributeID = m.AttributeID
JOIN Dictionary d ON d.AttributeID = m.AttributeID AND d.Code = m.Code
JOIN HierarchyLabel l ON l.AttributeID = m.AttributeID AND l.Level = m.Level AND l.Id = m.Id;
