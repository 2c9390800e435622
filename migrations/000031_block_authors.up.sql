-- Who set a block, beside when: the admin's name, empty when it came from
-- the shell (tracker block add). A block set again is the last setter's.
ALTER TABLE blocks ADD COLUMN created_by text NOT NULL DEFAULT '';
