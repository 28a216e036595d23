-- NodePool limits against usage. Karpenter counts the *capacity* of the NodeClaims it launched against a NodePool's
-- spec.limits (not their allocatable), so nodes keep their status.capacity as given (quantity strings, every
-- resource, e.g. {"cpu":"2","memory":"8010776Ki","pods":"29","ephemeral-storage":"20959212Ki"}); NULL for nodes
-- collected before this column existed. NodePools keep spec.template.spec.expireAfter ("720h", "Never"; NULL unset).

ALTER TABLE nodes ADD COLUMN capacity_json TEXT;
ALTER TABLE nodepools ADD COLUMN expire_after TEXT;
