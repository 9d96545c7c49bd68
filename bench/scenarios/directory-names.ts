import { seeded } from '../../protocol/seeded.js';
/*
 * Word banks for the directory bench: given and family names from many places (accents, apostrophes, particles,
 * double-barrelled surnames), organisation names built from words, titles, tags and places. A seeded random
 * source, so two runs seed the same directory and their figures compare.
 */

/** mulberry32 (protocol/seeded.ts): two runs seed the same directory. */
export const rng = seeded;

export const pick = <T>(r: () => number, list: readonly T[]): T => list[Math.floor(r() * list.length)];

/** Accents off, lower case, letters and digits only: what an address's local part or a domain is made of. */
export const ascii = (s: string): string =>
  s
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/ß/g, 'ss')
    .replace(/[øØ]/g, 'o')
    .replace(/[łŁ]/g, 'l')
    .replace(/[đĐ]/g, 'd')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '');

// prettier-ignore
export const GIVEN = [
  'Olivia', 'Noah', 'Charlotte', 'Jack', 'Amelia', 'William', 'Isla', 'Oliver', 'Mia', 'Leo', 'Ava', 'Henry', 'Grace', 'Lucas', 'Chloe',
  'Thomas', 'Zoë', 'James', 'Ruby', 'Ethan', 'Sofía', 'Mason', 'Hana', 'Arjun', 'Priya', 'Kai', 'Aroha', 'Wiremu', 'Mei', 'Hiroshi',
  'Fatima', 'Omar', 'Lena', 'Jonas', 'Elif', 'Mateo', 'Lucía', 'Diego', 'Ana', 'Pedro', 'Ingrid', 'Søren', 'Nora', 'Emil', 'Aisha',
  'Kwame', 'Amara', 'Tariq', 'Yuki', 'Sora', 'Chen', 'Wei', 'Linh', 'Minh', 'Siobhán', 'Declan', 'Maeve', 'Rory', 'Camille', 'Julien',
  'Margaux', 'Hugo', 'Greta', 'Felix', 'Marta', 'Pablo', 'Rosa', 'Nikos', 'Eleni', 'Dmitri', 'Anya', 'Ivan', 'Zara', 'Ravi', 'Neha',
  'Sanjay', 'Imogen', 'Harvey', 'Freya', 'Alfie', 'Matilda', 'Archie', 'Evie', 'Oscar', 'Poppy', 'Toby', 'Willow', 'Finn', 'Ivy', 'Max',
  'Layla', 'Sam', 'Eden', 'Ari', 'Nina', 'Theo', 'Clara', 'Adam', 'Sara', 'Luca', 'José', 'María', 'Renée', 'Hélène', 'François',
  'Chloé', 'Inês', 'João', 'Björn', 'Åsa', 'Jürgen', 'Jörg', 'Łukasz', 'Małgorzata', 'Zoltán', 'Ágnes', 'Çağla', 'Ümit', 'Aoife', 'Seán',
  'Niamh', 'Ciarán', 'Tomás', 'Nicolás', 'Raphaël', 'Noémie', 'Maëlle', 'Anaïs', 'Gaël', 'Joël', 'Dagný', 'Sigríður', 'Þór', 'Mikołaj',
  'Kateřina', 'Tomáš', 'Dušan', 'Ljubica', 'Thảo', 'Huỳnh', 'Ngọc', 'Anh', 'Jian', 'Xiu', 'Haruto', 'Aiko', 'Min-jun', 'Seo-yeon',
  'Kofi', 'Ngozi', 'Chidi', 'Aaliyah', 'Yusuf', 'Layla', 'Mohammed', 'Rania', 'Emma', 'Jon', 'John', 'Jonathan', 'Kate', 'Katherine',
  'Liz', 'Elizabeth', 'Bob', 'Robert', 'Rob', 'Bill', 'Will', 'Mike', 'Michael', 'Dave', 'David', 'Steve', 'Stephen', 'Chris', 'Christine',
];

// prettier-ignore
export const FAMILY = [
  'Smith', 'Nguyen', 'Williams', 'Brown', 'Wilson', 'Taylor', 'Johnson', 'White', 'Martin', 'Anderson', 'Thompson', 'Walker', 'Harris',
  'Lee', 'Ryan', 'Robinson', 'Kelly', 'King', 'Davis', 'Wright', 'Chen', 'Singh', 'Patel', 'Kumar', 'Wang', 'Li', 'Zhang', 'Kim', 'Park',
  'Sato', 'Tanaka', 'Suzuki', 'Okafor', 'Mensah', 'Ngata', 'Walsh', "O'Brien", 'Murphy', 'Byrne', 'Rossi', 'Russo', 'Ferrari', 'Esposito',
  'Bianchi', 'Müller', 'Schmidt', 'Schneider', 'Fischer', 'Weber', 'Meyer', 'Dubois', 'Lefèvre', 'Moreau', 'Laurent', 'García',
  'Fernández', 'López', 'Martínez', 'Sánchez', 'Pérez', 'Silva', 'Santos', 'Oliveira', 'Costa', 'Kowalski', 'Nowak', 'Wiśniewski',
  'Novák', 'Horvat', 'Papadopoulos', 'Ivanov', 'Petrov', 'Andersson', 'Johansson', 'Hansen', 'Nielsen', 'Jensen', 'Larsen', 'Virtanen',
  'Korhonen', 'Yılmaz', 'Kaya', 'Demir', 'Haddad', 'Khan', 'Hussain', 'Ahmed', 'Ali', 'Rahman', 'Cohen', 'Levi', 'Friedman', 'Hughes',
  'Carter', 'Brooks', 'Reyes', 'Cruz', 'Ortega', 'Sharma', 'Álvarez', 'González', 'Muñoz', 'Peña', 'Ibáñez', 'Núñez', 'Côté', 'Gauthier',
  'Bélanger', 'Brontë', 'Šimić', 'Dvořák', 'Kovač', 'Wójcik', 'Łukaszewicz', 'Ødegaard', 'Ångström', 'Jäger', 'Köhler', 'Weiß', 'Groß',
  'Çelik', 'Öztürk', "O'Connor", "O'Sullivan", "D'Souza", "D'Angelo", 'MacDonald', 'McAllister', 'van der Berg', 'van Dijk', 'de Vries',
  'de la Cruz', 'dos Santos', 'Trần', 'Lê', 'Phạm', 'Hoàng', 'Đặng', 'Vũ', 'Bùi', 'Takahashi', 'Watanabe', 'Yamamoto', 'Nakamura',
  'Kobayashi', 'Choi', 'Jung', 'Kang', 'Cho', 'Adeyemi', 'Oyelaran', 'Nwosu', 'Boateng', 'Asante', 'Te Whare', 'Parata', 'Tūhoe',
  'Fitzgerald', 'Gallagher', 'Doherty', 'Kennedy', 'Lynch', 'Quinn', 'Stewart', 'Campbell', 'Robertson', 'Fraser', 'Gillespie', 'Morrison',
  'Abernethy', 'Blackwood', 'Castellanos', 'Delacroix', 'Eriksen', 'Fontaine', 'Guerrero', 'Halvorsen', 'Iglesias', 'Jovanović',
  'Kristiansen', 'Lindqvist', 'Marchetti', 'Nakashima', 'Oyelowo', 'Pellegrini', 'Quintero', 'Rasmussen', 'Sørensen', 'Thorsen',
];

/** Short forms people type for a given name (a duplicate record's name is often one of these). */
// prettier-ignore
export const NICKNAMES: Readonly<Record<string, string>> = {
  John: 'Jon', Jonathan: 'Jon', Katherine: 'Kate', Elizabeth: 'Liz', Robert: 'Bob', William: 'Will', Michael: 'Mike', David: 'Dave',
  Stephen: 'Steve', Christine: 'Chris', Thomas: 'Tom', James: 'Jim', Samuel: 'Sam', Alexander: 'Alex', Nicolás: 'Nico', Tomás: 'Tom',
  Margaux: 'Margot', Matilda: 'Tilly', Oliver: 'Ollie', Archie: 'Arch', Imogen: 'Immy', Sofía: 'Sofia', José: 'Jose', María: 'Maria',
  Zoë: 'Zoe', Chloé: 'Chloe', Renée: 'Renee', Hélène: 'Helene', Łukasz: 'Lukasz', Søren: 'Soren', Björn: 'Bjorn',
};

// prettier-ignore
export const TITLES = [
  'Chief Financial Officer', 'CFO', 'Head of Procurement', 'Account Manager', 'Accounts Payable Officer', 'Sales Director', 'Office Manager',
  'Managing Director', 'Operations Manager', 'Partner', 'Senior Associate', 'Marketing Lead', 'Engineering Manager', 'Buyer',
  'Customer Success Manager', 'Legal Counsel', 'Company Secretary', 'Founder', 'Chief Executive Officer', 'Project Manager', 'Analyst',
  'Recruiter', 'Consultant', 'Architect', 'Site Supervisor', 'Practice Manager', 'Editor', 'Producer', 'Paralegal', 'Bookkeeper',
];

// prettier-ignore
export const PERSON_TAGS = ['customer', 'supplier', 'vip', 'partner', 'investor', 'press', 'board', 'advisor', 'candidate', 'alumni', 'event-2026', 'newsletter'];
// prettier-ignore
export const ORG_TAGS = ['customer', 'supplier', 'partner', 'competitor', 'reseller', 'government', 'nonprofit', 'prospect', 'bank', 'insurer'];

/** Organisation names: [first word] [industry] [place?] [legal form?]. */
// prettier-ignore
export const ORG_FIRST = [
  'Acme', 'Northwind', 'Bluegum', 'Harbour', 'Coastal', 'Summit', 'Ironbark', 'Wattle', 'Southern Cross', 'Pacific', 'Redgum', 'Kookaburra',
  'Silver Fern', 'Kauri', 'Tasman', 'Meridian', 'Evergreen', 'Granite', 'Lighthouse', 'Riverbend', 'Stonebridge', 'Westfield', 'Eastgate',
  'Brightwater', 'Clearwater', 'Oakridge', 'Pinecrest', 'Highgate', 'Kingsway', 'Queensbury', 'Café Lumière', 'Bäckerei Köhler', 'Müller',
  'Søndergaard', 'Åkesson', 'Groupe Mercier', 'Société Générale des Eaux', 'Hernández y Hijos', 'Peña', 'São Paulo', 'Zürich', 'Kraków',
  'Lyonnaise', 'Bellevue', 'Montréal', 'Québec', 'Città', 'Agua Clara', 'Sol y Sombra', 'Nguyễn', 'Trần', 'Sakura', 'Fuji', 'Hanok',
  'Mandala', 'Lotus', 'Jade', 'Banyan', 'Baobab', 'Kilimanjaro', 'Sahara', 'Atlas', 'Olympus', 'Athena', 'Apollo', 'Orion', 'Polaris',
  'Vega', 'Nova', 'Quantum', 'Vertex', 'Apex', 'Zenith', 'Pinnacle', 'Keystone', 'Cornerstone', 'Bedrock', 'Foundry', 'Anvil', 'Forge',
  'Copperleaf', 'Goldcrest', 'Ivory', 'Onyx', 'Cobalt', 'Indigo', 'Saffron', 'Cinnamon', 'Juniper', 'Maple', 'Willow', 'Cedar', 'Aspen',
  'Birch', 'Hawthorn', 'Thistle', 'Heather', 'Bramble', 'Fernleaf', 'Mossvale', 'Glenrock', 'Ben Lomond', 'Ailsa', "O'Reilly", "McAllister",
  'Fitzroy', 'Carlton', 'Paddington', 'Newtown', 'Fremantle', 'Hobart', 'Darwin', 'Ballarat', 'Bendigo', 'Geelong', 'Toowoomba', 'Cairns',
];
// prettier-ignore
export const ORG_INDUSTRY = [
  'Logistics', 'Freight', 'Consulting', 'Advisory', 'Engineering', 'Construction', 'Builders', 'Plumbing', 'Electrical', 'Software',
  'Systems', 'Digital', 'Media', 'Studios', 'Design', 'Architects', 'Legal', 'Lawyers', 'Accounting', 'Partners', 'Capital', 'Ventures',
  'Holdings', 'Investments', 'Insurance', 'Health', 'Dental', 'Medical', 'Pharmacy', 'Foods', 'Bakery', 'Coffee', 'Roasters', 'Brewing',
  'Wines', 'Hospitality', 'Hotels', 'Travel', 'Education', 'Academy', 'Training', 'Recruitment', 'Staffing', 'Security', 'Cleaning',
  'Facilities', 'Energy', 'Solar', 'Water', 'Agriculture', 'Farms', 'Dairy', 'Timber', 'Steel', 'Plastics', 'Packaging', 'Printing',
  'Textiles', 'Fashion', 'Retail', 'Trading', 'Imports', 'Exports', 'Marine', 'Aviation', 'Motors', 'Automotive', 'Rentals', 'Property',
  'Realty', 'Developments', 'Labs', 'Biotech', 'Analytics', 'Robotics', 'Telecom', 'Networks', 'Cloud', 'Data', 'Events', 'Catering',
];
// prettier-ignore
export const ORG_PLACE = ['Sydney', 'Melbourne', 'Brisbane', 'Perth', 'Adelaide', 'Auckland', 'Wellington', 'Nord', 'Sud', 'Pacific', 'Asia', 'Europe', 'International', 'Australia', 'NZ', 'Group', 'Services', 'Co-op'];
/** Legal forms by country (dir_fold drops them when comparing names). */
// prettier-ignore
export const LEGAL: Readonly<Record<string, readonly string[]>> = {
  AU: ['Pty Ltd', 'Pty. Ltd.', 'Limited', ''],
  NZ: ['Limited', 'Ltd', ''],
  GB: ['Ltd', 'Limited', 'LLP', 'plc'],
  DE: ['GmbH', 'AG', 'GmbH & Co. KG'],
  FR: ['SAS', 'SARL', 'SA'],
  US: ['Inc.', 'LLC', 'Corp.'],
};
// prettier-ignore
export const TLD: Readonly<Record<string, string>> = { AU: 'com.au', NZ: 'co.nz', GB: 'co.uk', DE: 'de', FR: 'fr', US: 'com' };
/** Where the organisations are (most in Australia: the default phone country). */
// prettier-ignore
export const COUNTRIES = ['AU', 'AU', 'AU', 'AU', 'AU', 'AU', 'NZ', 'GB', 'DE', 'FR', 'US'];
// prettier-ignore
export const FREE_MAIL = ['gmail.com', 'outlook.com', 'hotmail.com', 'yahoo.com', 'icloud.com', 'bigpond.com', 'proton.me', 'gmx.de'];
// prettier-ignore
export const STREETS = ['George St', 'Collins St', 'Queen St', 'King William St', 'Hay St', 'Lambton Quay', 'Rue de Rivoli', 'Königstraße', 'High St', 'Main St'];
// prettier-ignore
export const LOCALITIES: Readonly<Record<string, readonly [string, string, string]>> = {
  AU: ['Sydney', 'NSW', '2000'],
  NZ: ['Wellington', 'Wellington', '6011'],
  GB: ['London', 'Greater London', 'EC1A 1BB'],
  DE: ['München', 'Bayern', '80331'],
  FR: ['Paris', 'Île-de-France', '75001'],
  US: ['Seattle', 'WA', '98101'],
};
// prettier-ignore
export const NOTE_LINES = [
  'Prefers email; invoices to the accounts address.', 'Met at the Sydney trade show.', 'Introduced by the board.',
  'Net 30 terms agreed.', 'Call before visiting site.', 'Renewal due in March.', 'Key contact for the Melbourne office.',
];
