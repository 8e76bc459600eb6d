// Vocabularies of the audience statistics: what their rows rank. Kept as delimited text
// because one entry per line would bury the logic that uses them.

/** "a,b|c,d" -> [["a","b"],["c","d"]] */
function pairs(text: string): ReadonlyArray<readonly [string, string]> {
  return text.split("|").map((pair) => {
    const [first = "", second = ""] = pair.split(",");
    return [first, second] as const;
  });
}

/** [city, country code] */
export const CITIES = pairs(
  "Paris,FR|London,GB|New York,US|Los Angeles,US|Berlin,DE|São Paulo,BR|Mexico City,MX|" +
    "Tokyo,JP|Seoul,KR|Lagos,NG|Madrid,ES|Milan,IT|Amsterdam,NL|Stockholm,SE|Sydney,AU|" +
    "Toronto,CA|Istanbul,TR|Jakarta,ID|Mumbai,IN|Cairo,EG|Buenos Aires,AR|Bogotá,CO|" +
    "Manila,PH|Warsaw,PL|Lisbon,PT|Athens,GR|Riyadh,SA|Casablanca,MA|Johannesburg,ZA|" +
    "Dublin,IE",
);

/** [language code, language] */
export const LANGUAGES = pairs(
  "en,English|es,Spanish|pt,Portuguese|fr,French|de,German|ja,Japanese|ko,Korean|" +
    "ar,Arabic|tr,Turkish|it,Italian|id,Indonesian|hi,Hindi|el,Greek|nl,Dutch|pl,Polish",
);

export const INTERESTS = (
  "Music,Fashion,Gaming,Travel,Fitness,Food,Cars,Movies,Art,Tech,Sports,Beauty," +
  "Photography,Books,Dance,Comedy,Nature,Politics,Pets,Design"
).split(",");

export const BRANDS = (
  "Northwind,Contoso,Fabrikam,Tailspin,Wingtip,Litware,Proseware,Adatum,Woodgrove," +
  "Fourth Coffee,Lucerne,Margie's Travel,Alpine Ski,Blue Yonder,Coho Winery,Humongous," +
  "Trey Research,Wide World"
).split(",");

export const STAT_NAMES = (
  "avg_likes_per_post,avg_comments_per_post,engagement_rate,followers_growth," +
  "posts_per_week,reach"
).split(",");

export const GENDERS = ["female", "male"];
export const AGE_GROUPS = ["13-17", "18-24", "25-34", "35-44", "45-64", "65+"];
