package org.roce4j.wire.mad;

import java.util.Optional;

/**
 * The CM's attributes (IBTA Vol. 1 table 104; Linux {@code CM_*_ATTR_ID} in cm_msgs.h): which
 * message a CM MAD carries.
 */
public enum CmAttribute {
    CLASS_PORT_INFO(0x0001),
    REQ(0x0010),
    MRA(0x0011),
    REJ(0x0012),
    REP(0x0013),
    RTU(0x0014),
    DREQ(0x0015),
    DREP(0x0016),
    SIDR_REQ(0x0017),
    SIDR_REP(0x0018),
    LAP(0x0019),
    APR(0x001A);

    private final int id;

    CmAttribute(int id) {
        this.id = id;
    }

    /** {@return the attribute ID of the MAD header} */
    public int id() {
        return id;
    }

    /**
     * {@return the attribute with this ID, or empty for one the CM does not define}
     *
     * @param id the MAD header's attribute ID
     */
    public static Optional<CmAttribute> of(int id) {
        for (CmAttribute attribute : values()) {
            if (attribute.id == id) {
                return Optional.of(attribute);
            }
        }
        return Optional.empty();
    }
}
