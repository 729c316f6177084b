import { describe, expect, it } from "vitest";
import { applyTransform } from "../../../engine/normalize/convert.js";

const docdb = (v: unknown) => applyTransform(v, "docdb");
const company = (v: unknown) => applyTransform(v, "company_name");

describe("the docdb transform", () => {
  it("writes publication numbers of the large offices as COUNTRY-NUMBER-KIND", () => {
    expect(docdb("US11234567B2")).toBe("US-11234567-B2");
    expect(docdb("EP3123456A1")).toBe("EP-3123456-A1");
    expect(docdb("WO2019123456A1")).toBe("WO-2019123456-A1");
    expect(docdb("CN105123456A")).toBe("CN-105123456-A");
    expect(docdb("CN112345678B")).toBe("CN-112345678-B");
    expect(docdb("JP2020123456A")).toBe("JP-2020123456-A");
    expect(docdb("KR101234567B1")).toBe("KR-101234567-B1");
    expect(docdb("DE102018123456A1")).toBe("DE-102018123456-A1");
  });

  it("drops the leading zero of a US pre-grant serial, as DOCDB numbers them", () => {
    expect(docdb("US20210123456A1")).toBe("US-2021123456-A1");
    // A grant's number is kept whole, even one that starts with 20.
    expect(docdb("US2012345B1")).toBe("US-2012345-B1");
  });

  it("leaves out a kind code the number does not have", () => {
    expect(docdb("US11234567")).toBe("US-11234567");
    expect(docdb("EP3123456")).toBe("EP-3123456");
    expect(docdb("WO2019123456")).toBe("WO-2019123456");
  });

  it("keeps series letters (reissues, designs, Japanese eras) in the number", () => {
    expect(docdb("USRE49123E1")).toBe("US-RE49123-E1");
    expect(docdb("USD912345S")).toBe("US-D912345-S");
    expect(docdb("JPH0812345A")).toBe("JP-H0812345-A");
  });

  it("reads the ways numbers are written: Google's patent id, spaces, commas, lower case, DOCDB itself", () => {
    expect(docdb("patent/US11234567B2/en")).toBe("US-11234567-B2");
    expect(docdb("US 11,234,567 B2")).toBe("US-11234567-B2");
    expect(docdb(" us11234567b2 ")).toBe("US-11234567-B2");
    expect(docdb("US-11234567-B2")).toBe("US-11234567-B2");
    expect(docdb("EP 3 123 456 A1")).toBe("EP-3123456-A1");
  });

  it("gives null for what is no publication number, and passes null on", () => {
    expect(docdb("PCT/US2019/012345")).toBeNull();
    expect(docdb("not a number")).toBeNull();
    expect(docdb("")).toBeNull();
    expect(docdb(null)).toBeNull();
  });
});

describe("the company_name transform", () => {
  it("makes one name of the ways a company is written", () => {
    for (const v of ["Apple Inc.", "APPLE INC", "Apple, Inc", "apple incorporated", "Apple Inc"])
      expect(company(v), v).toBe("APPLE");
  });

  it("drops legal forms, several in turn, and a leading article", () => {
    expect(company("Siemens Aktiengesellschaft")).toBe("SIEMENS");
    expect(company("Siemens AG")).toBe("SIEMENS");
    expect(company("Samsung Electronics Co., Ltd.")).toBe("SAMSUNG ELECTRONICS");
    expect(company("SAMSUNG ELECTRONICS CO LTD")).toBe("SAMSUNG ELECTRONICS");
    expect(company("Merck & Co., Inc.")).toBe("MERCK");
    expect(company("Alphabet GmbH & Co. KG")).toBe("ALPHABET");
    expect(company("Koninklijke Philips N.V.")).toBe("KONINKLIJKE PHILIPS");
    expect(company("Telefonaktiebolaget LM Ericsson (publ)")).toBe("TELEFONAKTIEBOLAGET LM ERICSSON");
    expect(company("The Boeing Company")).toBe("BOEING");
    expect(company("Kabushiki Kaisha Toshiba")).toBe("TOSHIBA");
    expect(company("Bluefield Medical, L.L.C.")).toBe("BLUEFIELD MEDICAL");
  });

  it("folds accents of Latin letters, reads & as AND and closes up dots and apostrophes", () => {
    expect(company("Société Générale S.A.")).toBe("SOCIETE GENERALE");
    expect(company("Nestlé S. A.")).toBe("NESTLE");
    expect(company("Johnson & Johnson")).toBe("JOHNSON AND JOHNSON");
    expect(company("Johnson and Johnson")).toBe("JOHNSON AND JOHNSON");
    expect(company("O'Brien Tech GmbH")).toBe("OBRIEN TECH");
  });

  it("drops Chinese and Japanese legal forms and keeps kana as written", () => {
    expect(company("华为技术有限公司")).toBe("华为技术");
    expect(company("株式会社デンソー")).toBe("デンソー");
    expect(company("トヨタ自動車株式会社")).toBe("トヨタ自動車");
    expect(company("株式会社 ブリヂストン")).toBe("ブリヂストン");
  });

  it("keeps a name that is a legal form alone, and gives null for a blank one", () => {
    expect(company("Inc.")).toBe("INC");
    expect(company("Company Inc")).toBe("COMPANY");
    expect(company("  ")).toBeNull();
    expect(company(null)).toBeNull();
  });
});
