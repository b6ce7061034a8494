package org.roce4j.wire;

/** An IEEE 802.1Q tag: priority code point, drop eligible indicator, VLAN id. */
public record VlanTag(int priority, boolean dropEligible, int vlanId) {
    public VlanTag {
        Bytes.requireRange("priority", priority, 0, 7);
        Bytes.requireRange("VLAN id", vlanId, 0, 4095);
    }

    static VlanTag ofTci(int tci) {
        return new VlanTag(tci >>> 13, (tci & 0x1000) != 0, tci & 0xFFF);
    }

    int tci() {
        return priority << 13 | (dropEligible ? 0x1000 : 0) | vlanId;
    }
}
